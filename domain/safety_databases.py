"""Command tables for SQL clients, MongoDB, MySQL, PostgreSQL and Redis, and SQL in any command."""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety_rules import (
    D,
    M,
    Pattern,
    R,
    Rule,
    ToolRule,
    flags,
    pattern,
    same,
)

SQL_CLIENTS = frozenset(
    {"psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "clickhouse-client", "cqlsh", "duckdb"}
)
SQL_FROM_INPUT = Rule(M, "runs SQL read from its input, which cannot be checked")
# Checked on every simple command except searches (`grep "DROP TABLE" postgres.log` is fine).
SQL_PATTERNS: tuple[Pattern, ...] = (
    pattern(r"(?i)\bdrop\s+(?:table|database|schema)\b", Rule(D, "drops a database or table")),
    pattern(r"(?i)\bdelete\s+from\b", Rule(D, "deletes database rows")),
    pattern(r"(?i)\bupdate\s+[\w.\"`]+\s+set\b", Rule(M, "updates database rows")),
    pattern(r"(?i)\binsert\s+into\b", Rule(M, "inserts database rows")),
    pattern(r"(?i)\btruncate\s+table\b", Rule(M, "empties a database table")),
    pattern(
        r"(?i)\b(?:alter|create)\s+(?:table|database|schema|index|user|role|view)\b",
        Rule(M, "changes the database schema"),
    ),
    pattern(
        r"(?i)\b(?:grant|revoke)\s+[\w\s,]{1,200}?\s+(?:on|to|from)\b",
        Rule(M, "changes permissions"),
    ),
)

_SQL_CHANGE = (
    r"(?i)(?:^|[\s;(])(?:update|insert|upsert|merge|replace|delete|truncate|drop|alter|create"
    r"|grant|revoke|copy|vacuum|reindex|rename|call)\b"
)
_REDIS_CHANGE = (
    r"(?i)\s(?:set|setex|setnx|mset|del|unlink|expire|pexpire|persist|rename|hset|hdel|hincrby"
    r"|lpush|rpush|lpop|rpop|lrem|ltrim|sadd|srem|spop|zadd|zrem|incr|incrby|decr|decrby|append"
    r"|getset|getdel|restore|migrate|move|shutdown|save|bgsave|debug|xadd|xdel|eval|evalsha"
    r"|publish|client\s+kill|config\s+(?:set|rewrite))\b"
)
SQL_CLIENT = ToolRule(
    patterns=(pattern(_SQL_CHANGE, Rule(M, "changes the database")),),
    default=Rule(R, "runs a read-only query"),
)


DATABASE_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **same(
        flags(
            pattern(r"\.(?:drop|dropDatabase)\s*\(", Rule(D, "drops a database or collection")),
            pattern(
                r"\.(?:remove|delete\w*|update\w*|insert\w*|replace\w*|rename\w*|create\w*"
                r"|findAndModify|bulkWrite)\s*\(",
                Rule(M, "changes the database"),
            ),
        ),
        "mongo mongosh",
    ),
    "mysqladmin": flags(
        pattern(r"\sdrop\b", Rule(D, "drops a database")),
        pattern(
            r"\s(?:shutdown|create|kill|flush-\S+|reload|refresh|password)\b",
            Rule(M, "changes the database server"),
        ),
    ),
    "pg_ctl": flags(
        pattern(
            r"\s(?:stop|start|restart|reload|promote|kill|init|initdb)\b",
            Rule(M, "changes the database server"),
        )
    ),
    "redis-cli": flags(
        pattern(r"(?i)\s(?:flushall|flushdb)\b", Rule(D, "wipes every key in Redis")),
        pattern(_REDIS_CHANGE, Rule(M, "changes data in Redis")),
    ),
}
