"""Command tables for HTTP clients: curl, wget and HTTPie.

A request that sends data changes the server unless it is a GET (`curl -G -d q=up`) or a query
sent to an endpoint that only reads (Prometheus `/api/v1/query`, Loki, Elasticsearch `_search`).
Saving a download, a header dump or cookies writes a file; protocols other than HTTP, FTP and
local files can send commands (`gopher://`, `dict://`, `smtp://`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from domain.safety.rules import (
    READS,
    WRITES_FILE,
    M,
    Rule,
    ToolRule,
    checked,
    flags,
    opaque,
    opts,
    pattern,
)

SENDS = Rule(M, "sends a request that changes data on the server")
SAVES = Rule(M, "saves a download to disk")
OTHER_PROTOCOL = opaque("uses a protocol other than HTTP, which can send commands")
CONFIG_FILE = opaque("reads its options from a file the validator cannot inspect")

# Endpoints that take a query in a POST body and only read.
_QUERY_ENDPOINT = re.compile(
    r"/api/v1/(?:query|query_range|query_exemplars|series|labels|label/[^/]+/values"
    r"|format_query|parse_query)$|/loki/api/v1/(?:query|query_range|series|labels"
    r"|label/[^/]+/values|index/stats)$|/_(?:search|count|msearch|field_caps|validate/query"
    r"|sql)$"
)
_WEB_SCHEMES = frozenset({"http", "https", "ftp", "ftps", "file"})
_HARMLESS_OUTPUTS = frozenset({"-", "/dev/null", "/dev/stdout", "/dev/stderr"})
_READ_METHODS = frozenset({"", "GET", "HEAD", "OPTIONS"})

_CURL_SHORT_VALUES = "AbcCdDeEFHKmoPQrTtuUwxXyYz"
_CURL_LONG_VALUES = opts(
    "--data --data-raw --data-binary --data-ascii --data-urlencode --json --form --form-string"
    " --upload-file --request --output --output-dir --dump-header --cookie-jar --cookie --config"
    " --header --user-agent --referer --user --proxy --proxy-user --max-time --connect-timeout"
    " --retry --retry-delay --retry-max-time --write-out --cert --key --cacert --capath"
    " --cert-type --key-type --pass --resolve --connect-to --url --interface --trace"
    " --trace-ascii --stderr --libcurl --etag-save --etag-compare --hsts --alt-svc --unix-socket"
    " --abstract-unix-socket --range --limit-rate --max-filesize --noproxy --oauth2-bearer"
    " --aws-sigv4 --request-target --quote --preproxy --dns-servers --doh-url --local-port"
    " --variable --tls-max --ciphers --pinnedpubkey --max-redirs --keepalive-time --speed-time"
    " --speed-limit --time-cond --continue-at --proto --proto-redir --mail-from --mail-rcpt"
    " --ftp-port --telnet-option --create-file-mode --parallel-max --ip-tos --socks5"
    " --socks5-hostname --socks4 --socks4a"
)
_CURL_DATA = opts("-d --data --data-raw --data-binary --data-ascii --data-urlencode")
_CURL_UPLOADS = opts("-T --upload-file -F --form --form-string --json")
_CURL_SAVES = opts("-O --remote-name --remote-name-all -J --remote-header-name")
_CURL_WRITES = opts(
    "-D --dump-header -c --cookie-jar --trace --trace-ascii --libcurl --stderr --etag-save"
    " --hsts --alt-svc"
)


def _curl_words(args: list[str]) -> list[tuple[str, str]]:
    """curl's arguments as (option, value) pairs; a URL is ("", url), a flag has no value."""
    pairs: list[tuple[str, str]] = []
    index = 0
    while index < len(args):
        arg, following = args[index], args[index + 1] if index + 1 < len(args) else ""
        index += 1
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            takes = not eq and name in _CURL_LONG_VALUES
            pairs.append((name, value if eq else following if takes else ""))
            index += takes
        elif arg.startswith("-") and len(arg) > 1:
            for position, letter in enumerate(arg[1:], 1):
                if letter in _CURL_SHORT_VALUES:
                    attached = arg[position + 1 :]
                    pairs.append(("-" + letter, attached or following))
                    index += not attached
                    break
                pairs.append(("-" + letter, ""))
        else:
            pairs.append(("", arg))
    return pairs


def _curl(args: list[str], upstream: str | None) -> Rule:
    pairs = _curl_words(args)
    names = {name for name, _ in pairs}
    urls = [value for name, value in pairs if name in ("", "--url")]
    if names & {"-K", "--config", "-Q", "--quote"}:
        return CONFIG_FILE if names & {"-K", "--config"} else SENDS
    if not all(_scheme(url) in _WEB_SCHEMES for url in urls):
        return OTHER_PROTOCOL
    method = next((v.upper() for n, v in reversed(pairs) if n in ("-X", "--request")), "")
    uploads = bool(names & _CURL_UPLOADS)
    data = bool(names & _CURL_DATA) and not names & {"-G", "--get"}
    if uploads or data or method not in _READ_METHODS:
        queries = not uploads and method in ("", "POST") and bool(urls) and all(map(_query, urls))
        if not queries:
            return SENDS
    saved = [v for n, v in pairs if n in ("-o", "--output") and v not in _HARMLESS_OUTPUTS]
    if saved or names & _CURL_SAVES:
        return SAVES
    written = [v for n, v in pairs if n in _CURL_WRITES and v not in _HARMLESS_OUTPUTS]
    return WRITES_FILE if written else READS


def _scheme(url: str) -> str:
    return url.partition("://")[0].lower() if "://" in url else "http"


def _query(url: str) -> bool:
    """Whether a URL is an endpoint that takes a query in a POST body and only reads."""
    if "://" not in url:
        url = "http://" + url
    try:
        path = urlsplit(url).path
    except ValueError:
        return False
    return _QUERY_ENDPOINT.search(path.rstrip("/")) is not None


_HTTPIE_VALUES = opts(
    "-a --auth -A --auth-type -p --print --pretty -s --style --verify --cert --cert-key"
    " --cert-key-pass --proxy --timeout --max-redirects --format-options --response-charset"
    " --response-mime --default-scheme --boundary --ssl --ciphers --max-headers"
    " --session-read-only"
)
_HTTPIE_ITEM = re.compile(r"^(?:\\.|[^:=@\\])*(:=@|=@|:=|==|=|@|:)")
_HTTPIE_DATA = frozenset({":=@", "=@", ":=", "=", "@"})


def _httpie(args: list[str], upstream: str | None) -> Rule:
    if "--offline" in args:
        return READS
    if any(
        arg.split("=")[0] in ("-d", "--download", "-o", "--output", "--session") for arg in args
    ):
        return SAVES
    words, skip = [], False
    for arg in args:
        if skip or arg.startswith("-"):
            skip = not skip and arg in _HTTPIE_VALUES
        else:
            words.append(arg)
    method = words[0] if words and re.fullmatch(r"[A-Z]+", words[0]) else ""
    items = words[2:] if method else words[1:]
    separators = [m.group(1) for m in map(_HTTPIE_ITEM.match, items) if m is not None]
    sends_data = any(sep in _HTTPIE_DATA for sep in separators) or upstream is not None
    if method not in _READ_METHODS or (not method and sends_data):
        return SENDS
    return READS


HTTP_COMMANDS: Mapping[str, Rule | ToolRule] = {
    "curl": checked(_curl),
    "wget": flags(
        pattern(r"\s--(?:post-data|post-file|body-data|body-file)\b", SENDS),
        pattern(r"\s--method[=\s](?!GET\b|HEAD\b|OPTIONS\b)", SENDS),
        pattern(
            r"\s(?:-[a-zA-Z]*[oaeiPrm](?=\s|$)|--(?:output-file|append-output|execute"
            r"|input-file|config|directory-prefix|mirror|recursive)\b)",
            SAVES,
        ),
        pattern(r"\s(?:-[a-zA-Z]*O\s*(?:-|/dev/null)(?=\s|$)|--spider\b)", READS),
        pattern(r"\s--output-document[=\s](?:-|/dev/null)(?=\s|$)", READS),
        default=SAVES,
    ),
    **dict.fromkeys(("http", "https", "xh", "xhs"), checked(_httpie)),
}
