"""Command tables for files, text, archives, processes, terminals, editors and scheduled jobs."""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety_rules import (
    EDITS_IN_PLACE,
    READS,
    WRITES_DEVICE,
    WRITES_FILE,
    D,
    M,
    Rule,
    ToolRule,
    flags,
    pattern,
    same,
)

_FORCE_RECURSIVE = r"^(?=.*\s(?:-[a-zA-Z]*[rR]|--recursive\b))(?=.*\s(?:-[a-zA-Z]*f|--force\b))"
_WORLD_WRITABLE = r"\s0*[0-7][0-7][2367](?=\s|$)|[\s,](?=[ug]{0,3}[ao])[ugoa]{1,4}\+[rwxX]{0,4}w"

EDITS = Rule(M, "opens a file for editing")
STOPS = Rule(M, "stops processes")

FILE_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **same(
        READS,
        "cat tac tail head less more zcat zless bzcat xzcat grep egrep fgrep zgrep rg ag ack"
        " cut uniq wc tr jq yq column diff cmp comm nl od hexdump xxd strings"
        " file stat ls dir tree pwd cd echo printf true false sleep ps pgrep pidof pstree top"
        " htop atop btop vmstat iostat mpstat sar pidstat free uptime w who whoami id groups"
        " last df du lsblk blkid findmnt lsof ss netstat ping ping6 traceroute tracepath mtr"
        " dig nslookup host whois uname lscpu lsmem lspci lsusb lsmod lshw dmidecode nproc"
        " getconf locale printenv which whereis type realpath readlink basename dirname base64"
        " md5sum sha1sum sha256sum sha512sum cksum getent sestatus getenforce test expr seq"
        " iptables-save kubectx kubens for done fi esac case",
    ),
    **same(
        flags(
            pattern(
                r"\bsystem\s*\(|\|\s*getline|print[^;}]*[|>]",
                Rule(M, "runs commands or writes files"),
            )
        ),
        "awk gawk mawk",
    ),
    **same(Rule(M, "schedules a command to run later"), "at batch"),
    "tar": flags(
        pattern(
            r"^\s+[a-zA-Z]*[xcru]|\s-[a-zA-Z]*[xcru]|\s--(?:extract|create|append|update|get|delete)\b",
            Rule(M, "extracts or creates archives"),
        ),
    ),
    "unzip": flags(pattern(r"\s-[a-zA-Z]*[ltvZ]\b", READS), default=Rule(M, "extracts archives")),
    **same(
        flags(
            pattern(r"\s-[a-zA-Z]*[clt]", READS),
            default=Rule(M, "compresses or decompresses files in place"),
        ),
        "gzip gunzip bzip2 bunzip2 xz unxz zstd",
    ),
    "renice": Rule(M, "changes process priority"),
    "ulimit": flags(pattern(r"\s(?:\d|unlimited)", Rule(M, "changes resource limits"))),
    "tmux": ToolRule(
        subcommands=same(READS, "ls list-sessions list-windows has-session info"),
        default=Rule(M, "runs commands in a terminal session"),
    ),
    "screen": flags(
        pattern(r"\s-(?:ls|list)\b", READS), default=Rule(M, "runs commands in a terminal session")
    ),
    "rm": flags(
        pattern(_FORCE_RECURSIVE, Rule(D, "deletes files recursively")),
        default=Rule(M, "deletes files"),
    ),
    "rmdir": Rule(M, "deletes directories"),
    "unlink": Rule(M, "deletes a file"),
    "shred": Rule(M, "destroys file contents"),
    "mv": Rule(M, "moves or renames files"),
    "cp": Rule(M, "copies files and can overwrite existing ones"),
    "install": Rule(M, "copies files into place"),
    "truncate": Rule(M, "empties or resizes files"),
    "ln": Rule(M, "creates links"),
    "mkdir": Rule(M, "creates directories"),
    "touch": Rule(M, "creates or updates files"),
    "chmod": flags(
        pattern(_WORLD_WRITABLE, Rule(D, "makes files writable by everyone")),
        default=Rule(M, "changes file permissions"),
    ),
    **same(Rule(M, "changes file ownership"), "chown chgrp"),
    **same(Rule(M, "changes file attributes or access lists"), "chattr setfacl"),
    "scp": Rule(M, "copies files between machines"),
    "rsync": Rule(M, "copies files and can delete them"),
    "kill": flags(
        pattern(r"\s-1$", Rule(D, "stops every process it can reach")),
        pattern(r"^\s+-[0lL](?=\s|$)", READS),
        default=STOPS,
    ),
    **same(STOPS, "pkill killall killall5 skill"),
    "sed": flags(pattern(r"\s(?:-[a-zA-Z]*i|--in-place)", EDITS_IN_PLACE)),
    "sort": flags(pattern(r"\s(?:-[a-zA-Z]*o|--output)", WRITES_FILE)),
    "tee": flags(
        pattern(r"\s/dev/(?!(?:null|zero|stdout|stderr|tty|fd/\d+)(?:\s|$))", WRITES_DEVICE),
        pattern(
            r"\s(?!-|/dev/(?:null|stdout|stderr|tty|fd/\d+)(?:\s|$))\S", Rule(M, "writes files")
        ),
    ),
    "dd": flags(
        pattern(r"\sof=/dev/(?!(?:null|zero|stdout|stderr)(?:\s|$))", WRITES_DEVICE),
        pattern(r"\sof=", WRITES_FILE),
    ),
    "openssl": flags(pattern(r"\s-out\b", WRITES_FILE)),
    "crontab": flags(
        pattern(r"\s-[a-zA-Z]*r\b", Rule(D, "removes every scheduled cron job")),
        pattern(r"\s-[a-zA-Z]*e\b", Rule(M, "edits scheduled cron jobs")),
        pattern(r"\s-[a-zA-Z]*l\b", READS),
        default=Rule(M, "replaces scheduled cron jobs"),
    ),
    **same(EDITS, "vi vim nvim nano emacs ed visudo vipw"),
}
