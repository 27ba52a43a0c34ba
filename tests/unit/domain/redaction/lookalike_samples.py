# ruff: noqa: E501
"""Realistic text for the redaction tests that only looks like a secret and must come out
unchanged.
"""

from __future__ import annotations

NOT_SECRETS: list[tuple[str, str]] = [
    # (what, text that must come out unchanged)
    (
        "ts iso",
        "2024-05-01T12:34:56.789Z ERROR request_id=7f3c9a1e-5b2d-4c8e-9f1a-2b3c4d5e6f70 failed",
    ),
    ("git sha", "deployed commit 3f9c2a1b7e4d5c6f8a9b0c1d2e3f4a5b6c7d8e9f to prod"),
    ("pod name", "pod/api-7d9f8c6b5-x2k4q OOMKilled on node ip-10-0-1-23.ec2.internal"),
    ("ip port", "dial tcp 10.96.0.10:53: i/o timeout"),
    ("env PWD", "PWD=/srv/app/releases/20240501\nOLDPWD=/root\nHOME=/root"),
    ("token ttl", "token_ttl: 3600\ntoken_expiry=2024-05-01T12:00:00Z"),
    ("secret name k8s", "secret: default/db-credentials not found"),
    (
        "secret_name",
        'level=error msg="failed to read" secret_name=payments-db secret_namespace=prod',
    ),
    (
        "credential source aws",
        "credential_source=Ec2InstanceMetadata\ncredential_process=/usr/local/bin/aws-vault",
    ),
    ("password_file", "password_file: /run/secrets/db_password"),
    ("secretKeyRef", "valueFrom:\n  secretKeyRef:\n    name: db-creds\n    key: password"),
    ("token count", "llm usage prompt_tokens=1234 completion_tokens=56 token_count=1290"),
    ("token_id uuid", "revoked token_id=7f3c9a1e-5b2d-4c8e-9f1a-2b3c4d5e6f70 for user 42"),
    ("api_key_id", "request by api_key_id=key_01HXYZ rate limited"),
    ("url with port + email query", "GET https://api.example.com:443?email=jane@example.com 200"),
    ("bearer realm", 'WWW-Authenticate: Bearer realm="api", error="invalid_token"'),
    ("akia-like", "trace AROAJ2UCCR6DPCEXAMPL assumed"),
    ("password policy", "PASSWORD_MIN_LENGTH=12\nPASSWORD_HASHER=argon2"),
    ("token endpoint url", "token_url: https://login.example.com/oauth2/token"),
    ("token_endpoint json", '{"token_endpoint": "https://idp.example.com/token", "jwks_uri": "x"}'),
    ("auth error msg", "ERROR Authorization: failed for user bob (invalid_grant)"),
    ("key: in selectors", "matchExpressions:\n- key: app\n  operator: In"),
    ("secret: ref in k8s", "volumes:\n- name: certs\n  secret:\n    secretName: tls-cert"),
    ("token: with number", "Token: 42 refreshed at 2024-05-01 12:00:00"),
    (
        "keycloak log",
        "type=LOGIN_ERROR, realmId=prod, clientId=web, userId=null, ipAddress=10.0.0.7, error=invalid_user_credentials, auth_method=openid-connect",
    ),
    ("credentials: count", "credentials: 3 loaded from /etc/app/creds.d"),
    ("vault path", "vault: reading secret_path=secret/data/payments/db"),
    ("traceparent", "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    ("pwd: dir", "pwd: /home/deploy/app"),
    ("session id in log", "session_id=4bf92f3577b34da6 user=42 action=checkout"),
    ("jwt kid", "kid=2024-05-key-1 alg=RS256 key_id=2024-05-key-1"),
    ("key rotation", "secret_version: 17\nsecret_rotated_at=2024-04-30T00:00:00Z"),
    ("bearer word with digit", "failed to validate bearer tokens_for_service_v2_client"),
    ("xoxo", "greeting xoxo-from-the-team-2024"),
    ("url userinfo no pw", "ssh://git@github.com:22/org/repo.git"),
    (
        "sha256 digest",
        "image: repo/app@sha256:9b2a3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b",
    ),
]
