"""Command tables for database servers and clients: SQL clients, MongoDB, Redis, PostgreSQL tools.

Redis commands are an allowlist; a MongoDB `--eval` is read-only only when it is a plain query
(`db.orders.find({...}).limit(5)`), anything else is code the validator cannot inspect.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from domain.safety.findings import echoed_lines, option_values, verb_candidates
from domain.safety.programs.sql import DB_PROMPT, SQL_CLIENTS
from domain.safety.rules import (
    READS,
    REVEALS_SECRETS,
    RUNS_INLINE,
    RUNS_SCRIPT,
    WRITES_FILE,
    D,
    M,
    Rule,
    ToolRule,
    Verdict,
    checked,
    opaque,
    opts,
    same,
    worst,
)

SERVER = Rule(M, "changes the database server")
REDIS_WIPE = Rule(D, "wipes every key in Redis")
REDIS_CHANGES = Rule(M, "changes data in Redis")
REDIS_UNKNOWN = opaque("is not a known read-only redis-cli command")
REDIS_PROMPT = opaque("opens an interactive Redis prompt, where anything can be typed")
REDIS_FROM_INPUT = opaque("runs Redis commands read from its input, which cannot be checked")
REDIS_CLUSTER = Rule(M, "changes the Redis cluster")
MONGO_FROM_INPUT = opaque("runs database commands read from its input, which cannot be checked")

# ---------------------------------------------------------------- Redis

_REDIS_READS = opts(
    "info get mget hget hmget hgetall hkeys hvals hlen hexists hstrlen hscan hrandfield"
    " lrange llen lindex lpos scard smembers sismember smismember srandmember sscan zrange"
    " zrangebyscore zrangebylex zrevrange zrevrangebyscore zrevrangebylex zcard zcount"
    " zlexcount zscore zmscore zrank zrevrank zscan ttl pttl expiretime pexpiretime type"
    " exists dbsize scan strlen getrange substr bitcount bitpos getbit role ping echo time"
    " lastsave xlen xrange xrevrange xpending geopos geodist geohash geosearch georadius_ro"
    " georadiusbymember_ro pfcount dump"
)
_REDIS_SUBCOMMANDS: Mapping[str, frozenset[str]] = {
    "slowlog": opts("get len help"),
    "client": opts("list info getname id trackinginfo getredir help"),
    "config": opts("get help"),
    "memory": opts("usage stats doctor malloc-stats help"),
    "latency": opts("latest history doctor graph histogram help"),
    "cluster": opts("info nodes slots shards myid myshardid countkeysinslot keyslot links help"),
    "pubsub": opts("channels numsub numpat shardchannels shardnumsub help"),
    "object": opts("encoding freq idletime refcount help"),
    "xinfo": opts("stream groups consumers help"),
    "command": opts("count info docs list getkeys help"),
    "acl": opts("whoami cat help"),
    "function": opts("list stats help"),
    "module": opts("list help"),
    "sentinel": opts(
        "masters master replicas slaves sentinels get-master-addr-by-name ckquorum myid help"
    ),
}
_REDIS_WRITES = opts(
    "set setex psetex setnx mset msetnx del unlink expire pexpire expireat persist rename"
    " renamenx hset hsetnx hmset hdel hincrby hincrbyfloat lpush rpush lpushx rpushx lpop"
    " rpop lrem ltrim lset linsert lmove blpop brpop sadd srem spop smove zadd zrem zincrby"
    " zpopmin zpopmax incr incrby incrbyfloat decr decrby append getset getdel getex restore"
    " migrate move copy xadd xdel xtrim xack xgroup xclaim eval evalsha fcall publish"
)
_REDIS_SERVER = opts(
    "shutdown save bgsave bgrewriteaof debug replicaof slaveof failover swapdb script"
)
# `CONFIG GET requirepass` (or `*`) prints the server's passwords.
_SECRET_SETTING = re.compile(r"(?i)pass|auth|user|acl|tls-key|[*?\[]")
_REDIS_VALUE_OPTIONS = opts(
    "-h -p -s -a -u -n -r -i -d -D -t --user --pass --sni --cacert --cacertdir --cert --key"
    " --tls-ciphers --tls-ciphersuites --pattern --count --memkeys-samples --quoted-pattern"
    " --intrinsic-latency --pipe-timeout --lru-test --eval --rdb --functions-rdb --cluster"
)
_REDIS_MODES = opts(
    "--stat --latency --latency-history --latency-dist --bigkeys --memkeys --hotkeys --scan"
    " --intrinsic-latency --replica --version --help"
)


def redis_command(words: list[str]) -> Rule:
    """What one Redis command does: only known read commands are read-only."""
    name = words[0].lower() if words else ""
    sub = words[1].lower() if len(words) > 1 else ""
    if name in ("flushall", "flushdb"):
        return REDIS_WIPE
    if name == "keys":
        return Rule(M, "lists every key, which blocks Redis while it runs")
    if name == "config" and sub == "get" and any(_SECRET_SETTING.search(w) for w in words[2:]):
        return REVEALS_SECRETS
    if name in _REDIS_READS or sub in _REDIS_SUBCOMMANDS.get(name, frozenset()):
        return READS
    if name in _REDIS_SERVER or (name in _REDIS_SUBCOMMANDS and name != "cluster" and sub):
        return Rule(M, "changes the Redis server")  # `CONFIG SET`, `CLIENT KILL`, `ACL SETUSER`
    if name == "cluster" and sub:
        return REDIS_CLUSTER
    return REDIS_CHANGES if name in _REDIS_WRITES else REDIS_UNKNOWN


def _redis_cli(args: list[str], upstream: str | None) -> Verdict:
    # Every option that takes a value is listed, so the first other word is the command.
    index = verb_candidates(args, _REDIS_VALUE_OPTIONS)
    own, words = (args[: index[0]], args[index[0] :]) if index else (args, [])
    if option_values(own, "", opts("--eval")):
        return RUNS_SCRIPT
    if option_values(own, "", opts("--rdb --functions-rdb")):
        return WRITES_FILE
    cluster = option_values(args, "", opts("--cluster"))
    if cluster:
        return READS if cluster[0].lower() in ("check", "info", "help") else REDIS_CLUSTER
    if words:
        return redis_command(words)
    if any(arg in _REDIS_MODES for arg in own):
        return READS
    if upstream is not None or "--pipe" in own:
        return _redis_input(upstream)
    return REDIS_PROMPT


def _redis_input(upstream: str | None) -> Rule:
    """Commands piped into redis-cli: checked when they are a plain echo, else unknown."""
    lines = echoed_lines(upstream)
    if lines:
        return worst(redis_command(line.split()) for line in lines)
    if re.search(r"(?i)\bflush(?:all|db)\b", upstream or ""):
        return REDIS_WIPE
    return REDIS_FROM_INPUT


# ---------------------------------------------------------------- MongoDB

_ARGS = r"\((?:[^()]|\([^()]*\))*\)"
_STATEMENT = (
    r"(?:db(?:\.getSiblingDB" + _ARGS + r")?|rs|sh)"
    r"(?:\.\w+|\.getCollection" + _ARGS + r"|\[\s*['\"][\w.-]+['\"]\s*\])*?"
    r"\.(?:find|findOne|count|countDocuments|estimatedDocumentCount|distinct|aggregate|stats"
    r"|dataSize|storageSize|totalIndexSize|totalSize|getIndexes|latencyStats|getShardDistribution"
    r"|isCapped|explain|serverStatus|currentOp|getCollectionNames|getCollectionInfos|hello"
    r"|isMaster|version|getName|hostInfo|printReplicationInfo|printSecondaryReplicationInfo"
    r"|getReplicationInfo|serverBuildInfo|serverCmdLineOpts|getProfilingStatus|getLogComponents"
    r"|printShardingStatus|status|conf)\s*" + _ARGS + r"(?:\s*\.\s*(?:limit|sort|skip|pretty"
    r"|toArray|count|explain|itcount|size|projection|hint|maxTimeMS|batchSize|comment"
    r"|allowDiskUse|collation|showRecordId|returnKey|readPref|min|max|next|hasNext)\s*"
    + _ARGS
    + r"|\s*\.\s*forEach\(\s*printjson\s*\))*(?:\.\w+|\[\d+\])*"
)
_ONE_QUERY = r"(?:(?:printjson|print)\(\s*" + _STATEMENT + r"\s*\)|" + _STATEMENT + r")"
_MONGO_READ = re.compile(r"\s*" + _ONE_QUERY + r"(?:\s*;\s*" + _ONE_QUERY + r")*\s*;?\s*")
_MONGO_CODE = re.compile(r"\$(?:where|function|accumulator|out|merge)\b|=>|\bfunction\b|`")
_MONGO_DROP = re.compile(r"\.(?:drop|dropDatabase)\s*\(")
_MONGO_CHANGE = re.compile(
    r"\.(?:remove|delete\w*|update\w*|insert\w*|replace\w*|rename\w*|create\w*"
    r"|findAndModify|findOneAnd\w+|bulkWrite|shutdownServer|adminCommand|runCommand)\s*\("
)
_MAX_MONGO_CODE = 2000


def mongo_code(code: str) -> Rule:
    """A `--eval` script: read-only only when it is one or more plain queries."""
    if _MONGO_DROP.search(code):
        return Rule(D, "drops a database or collection")
    if _MONGO_CHANGE.search(code):
        return Rule(M, "changes the database")
    plain = len(code) <= _MAX_MONGO_CODE and not _MONGO_CODE.search(code)
    return READS if plain and _MONGO_READ.fullmatch(code) else RUNS_INLINE


def _mongo_shell(args: list[str], upstream: str | None) -> Verdict:
    codes = option_values(args, "", opts("--eval"))
    scripts = option_values(args, "f", opts("--file"))
    scripts += [arg for arg in args if arg.endswith(".js") and not arg.startswith("-")]
    found = [mongo_code(code) for code in codes]
    if scripts:
        found.append(RUNS_SCRIPT)
    if "--shell" in args or not (codes or scripts):
        found.append(_mongo_prompt(args, upstream))
    return worst(found)


def _mongo_prompt(args: list[str], upstream: str | None) -> Rule:
    if upstream is not None:
        return MONGO_FROM_INPUT
    return READS if any(arg in ("--version", "--help", "-h") for arg in args) else DB_PROMPT


# ---------------------------------------------------------------- servers and their tools

_MYSQLADMIN_READS = opts("status extended-status processlist variables ping version")
_MYSQLADMIN_OPTIONS = opts(
    "-h -u -P -S -i -c --host --user --port --socket --sleep --count --defaults-file"
)


def _mysqladmin(args: list[str], upstream: str | None) -> Rule:
    commands, skip = [], False
    for arg in args:
        if skip or arg.startswith("-"):
            skip = not skip and arg in _MYSQLADMIN_OPTIONS
        else:
            commands.append(arg.lower())
    if "drop" in commands:
        return Rule(D, "drops a database")
    return READS if all(c in _MYSQLADMIN_READS for c in commands) else SERVER


DATABASE_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **SQL_CLIENTS,
    **same(checked(_mongo_shell), "mongo mongosh"),
    "redis-cli": checked(_redis_cli),
    "mysqladmin": checked(_mysqladmin),
    "pg_ctl": ToolRule(
        value_options=opts("-D -l -o -m -t -e -N -U -P -c -s"),
        subcommands={"status": READS},
        default=SERVER,
    ),
    "pg_ctlcluster": ToolRule(verb_index=2, subcommands={"status": READS}, default=SERVER),
    "dropdb": Rule(D, "drops a database"),
    "dropuser": Rule(D, "drops a database role"),
    **same(SERVER, "createdb createuser pg_upgrade pg_resetwal pg_rewind initdb"),
    **same(READS, "pg_isready pg_lsclusters pg_controldata"),
}
