"""Secret redaction: what people give the bot is cleaned before it is stored, embedded or sent out.

Applied to uploaded files, knowledge-base documents, thread messages and alert payloads. Secrets
are replaced by a marker; the number of lines never changes, so line numbers and citations hold.

Three passes:

* private keys (PEM, PGP, PuTTY): whole blocks, one marker line per original line, in one linear
  scan (a key cut short, with no END line, is blanked as far as its base64 body goes);
* one line at a time, gated by cheap lower-case needles so clean text costs little: tokens with a
  known shape (cloud, VCS, chat, payment and LLM providers), ``Authorization`` headers, cookies,
  passwords in URLs and query strings, command-line passwords, XML elements, and ``key = value``
  pairs whose key names a secret (``DB_PASSWORD``, ``dbPassword``, ``spring.datasource.password``,
  ``"client_secret"``, ``--token``), in every shape they take in env files, YAML, JSON, logs and
  shell history;
* across lines, where the name and the value are on different lines: Kubernetes ``env`` entries
  (``name: DB_PASSWORD`` / ``value: …``), the ``data`` of a ``kind: Secret``, and YAML block
  scalars under a secret's key.

Keys that only *mention* a secret are left alone (``token_ttl``, ``secret_name``, ``password_file``,
``api_key_id``), as are values that are no secret (references such as ``${DB_PASSWORD}``,
placeholders, paths, booleans, small numbers): an investigation needs them.

The package is the public face: ``redact`` runs the passes (``domain.redaction.passes``), the
line rules are in ``domain.redaction.line_rules``, the rules across lines and for key blocks in
``domain.redaction.blocks``, and the shared vocabulary in ``domain.redaction.parts``.
"""

from domain.redaction.parts import MARK, secret_key
from domain.redaction.passes import Redacted, redact, redact_text

__all__ = ["MARK", "Redacted", "redact", "redact_text", "secret_key"]
