"""Command tables for files, text, archives, processes, terminals, editors, builtins and cron."""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety.programs.sed import sed_rule
from domain.safety.rules import (
    EDITS_IN_PLACE,
    HOOK_VARIABLE,
    READS,
    RUNS_SCRIPT,
    STOPS,
    WRITES_DEVICE,
    WRITES_FILE,
    Check,
    D,
    M,
    Rule,
    ToolRule,
    checked,
    flags,
    hooks,
    opaque,
    opts,
    pattern,
    same,
)

_RECURSIVE = r"\s(?:-[a-zA-Z]*[rR]|--recursive\b)"
_WORLD_WRITABLE = r"\s0*[0-7][0-7][2367](?=\s|$)|[\s,](?=[ug]{0,3}[ao])[ugoa]{1,4}\+[rwxX]{0,4}w"

EDITS = Rule(M, "opens a file for editing")
TAR_RUNS = opaque("runs another program through its options")


PAGER_RUNS = opaque("runs commands or writes files from its options")


def _second_operand_written(value_options: frozenset[str]) -> Check:
    def check(args: list[str], upstream: str | None) -> Rule | None:
        words, skip = [], False
        for arg in args:
            if skip or (arg.startswith("-") and len(arg) > 1):
                skip = not skip and arg in value_options
            else:
                words.append(arg)
        return WRITES_FILE if len(words) > 1 else None

    return check


def _declares(args: list[str], upstream: str | None) -> Rule:
    """`export`, `declare`, `local`…: harmless unless they set a program hook (`PAGER=sh`)."""
    return HOOK_VARIABLE if hooks(args) else READS


FILE_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **same(
        READS,
        "cat tac tail head zcat zless zmore bzcat xzcat zstdcat lz4cat zdiff xzgrep"
        " bzgrep grep egrep fgrep zgrep ag cut wc tr jq column diff cmp comm nl od"
        " hexdump strings paste join fold fmt expand unexpand rev numfmt tsort pr sum b2sum"
        " sha224sum sha384sum envsubst file stat ls dir vdir pwd cd pushd popd dirs"
        " echo printf true false sleep ps pgrep pidof pstree top htop btop vmstat iostat"
        " mpstat pidstat free uptime w who whoami id groups users last lastb df du lsblk"
        " blkid findmnt lsof netstat ping ping6 traceroute traceroute6 tracepath tcptraceroute"
        " mtr dig nslookup host whois drill kdig delv fping httping uname lscpu lsmem lspci"
        " lsusb lsmod lshw lsns lslocks lsipc lsattr getfacl namei mountpoint numastat slabtop"
        " pmap iotop iftop nethogs nload ipcs tload nproc getconf locale printenv which"
        " whereis type realpath readlink basename dirname base64 md5sum sha1sum sha256sum"
        " sha512sum cksum getent sestatus getenforce lsb_release cal test [ [[ ]] expr seq"
        " for done fi esac case : set unset shopt read wait jobs exit return break continue",
    ),
    **same(checked(_declares), "export declare typeset local readonly"),
    # `uniq in out`, `xxd in out`, `python -m json.tool in out` write their second operand.
    "uniq": checked(_second_operand_written(opts("-f -s -w --skip-fields --skip-chars"))),
    "xxd": checked(_second_operand_written(opts("-c -g -l -s -o -n -C -cols -len -seek"))),
    "json.tool": checked(_second_operand_written(opts("--indent"))),
    **same(
        flags(
            pattern(
                r"\s\+\S*[!|#]|\s-[a-zA-Z]*[oO]|\s--(?:log-file|LOG-FILE|lesskey\S*)\b", PAGER_RUNS
            )
        ),
        "less more",
    ),
    "rg": flags(pattern(r"\s--pre(?:=|\s)", opaque("runs another program on each file"))),
    "ack": flags(pattern(r"\s--(?:pager|output)\b", opaque("runs another program or code"))),
    "tree": flags(pattern(r"\s-o\b", WRITES_FILE)),
    "atop": flags(pattern(r"\s-[a-zA-Z]*w\b", WRITES_FILE)),
    "dmidecode": flags(pattern(r"\s--dump-bin\b", WRITES_FILE)),
    "lastlog": flags(
        pattern(r"\s(?:-[a-zA-Z]*[CS]|--(?:clear|set))\b", Rule(M, "changes login records"))
    ),
    **same(
        flags(
            pattern(r"\s(?:-[a-zA-Z]*[fE]\b|--(?:file|exec)\b)|@include\b", RUNS_SCRIPT),
            pattern(
                r"\s(?:-i\s*inplace|--include[=\s]inplace|-[a-zA-Z]*l\b|--load\b)|@load\b",
                opaque("edits files in place or loads an extension"),
            ),
            pattern(
                r"\bsystem\s*\(|\|&?\s*getline|print[^;}]*[|>]",
                opaque("runs commands or writes files"),
            ),
        ),
        "awk gawk mawk",
    ),
    "yq": flags(pattern(r"\s(?:-[a-zA-Z]*i\b|--inplace\b)", EDITS_IN_PLACE)),
    "sar": flags(pattern(r"\s-[a-zA-Z]*o\b", WRITES_FILE)),
    "fuser": flags(pattern(r"\s(?:-[a-zA-Z]*k|--kill)\b", STOPS)),
    **same(opaque("schedules a command to run later"), "at batch"),
    "tar": flags(
        pattern(
            r"\s--(?:checkpoint-action|to-command|use-compress-program|info-script"
            r"|new-volume-script|rsh-command)\b|\s-[a-zA-Z]*[IF]",
            TAR_RUNS,
        ),
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
        default=opaque("runs commands in a terminal session"),
    ),
    "screen": flags(
        pattern(r"\s-(?:ls|list)\b", READS), default=opaque("runs commands in a terminal session")
    ),
    "rm": flags(
        pattern(_RECURSIVE, Rule(D, "deletes files recursively")),
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
    **same(STOPS, "pkill killall skill"),
    "killall5": Rule(D, "stops every process on the machine"),
    "sed": checked(sed_rule),
    "sort": flags(
        pattern(r"\s--compress-program\b", opaque("runs another program")),
        pattern(r"\s(?:-[a-zA-Z]*o|--output)", WRITES_FILE),
    ),
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
    **same(EDITS, "vi vim nvim nano emacs ed visudo vipw vigr sudoedit"),
}
