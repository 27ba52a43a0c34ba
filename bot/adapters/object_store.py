"""LanceDB's storage options from the FM_S3_* settings, and object-store errors in plain words."""

from __future__ import annotations

from bot.settings import Settings, s3_bucket

# Object-store error text (S3 error codes, the Rust client's messages) → what to fix.
EXPLANATIONS = (
    ("NoSuchBucket", "the bucket does not exist: create it or fix the bucket in FM_LANCEDB_URI"),
    ("SignatureDoesNotMatch", "the store refused the secret key: check FM_S3_SECRET_ACCESS_KEY"),
    ("InvalidAccessKeyId", "the store does not know the access key: check FM_S3_ACCESS_KEY_ID"),
    ("AccessDenied", "access denied: these credentials may not read and write the bucket"),
    ("PermanentRedirect", "the bucket is in another region: set FM_S3_REGION to its region"),
    (
        "Failed to get AWS credentials",
        "no credentials: set FM_S3_ACCESS_KEY_ID and FM_S3_SECRET_ACCESS_KEY, or give this"
        " machine an IAM role or AWS_* environment variables",
    ),
    (
        "kind: Connect",
        "the endpoint does not answer: check FM_S3_ENDPOINT and that the server is running",
    ),
)


def lancedb_storage_options(settings: Settings) -> dict[str, str]:
    """The options every LanceDB connection gets: the FM_S3_* settings for an s3:// URI."""
    if s3_bucket(settings.lancedb_uri) is None:
        return {}
    options = {"aws_region": settings.s3_region}
    if settings.s3_endpoint:
        options["aws_endpoint"] = settings.s3_endpoint
    if settings.s3_allow_http:
        options["allow_http"] = "true"
    if settings.s3_access_key_id and settings.s3_secret_access_key:
        # Without them LanceDB uses the AWS chain (IAM role, AWS_* variables) by itself.
        options["aws_access_key_id"] = settings.s3_access_key_id
        options["aws_secret_access_key"] = settings.s3_secret_access_key.get_secret_value()
    return options


def explain_store_error(message: str) -> str | None:
    """What an object-store failure means for the operator, when the message says."""
    for marker, meaning in EXPLANATIONS:
        if marker in message:
            return meaning
    return None
