"""Command tables for services, packages, users, disks, the kernel, clock, logs, web servers."""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety.findings import option_values
from domain.safety.rules import (
    DISK,
    READS,
    SERVICE,
    WRITES_FILE,
    D,
    M,
    Rule,
    Runs,
    ToolRule,
    Verdict,
    flags,
    objects,
    opaque,
    opts,
    pattern,
    same,
)

UNIT_CONFIG = Rule(M, "changes how a service starts")
MACHINE_DOWN = Rule(D, "shuts down or reboots the machine")
MACHINE_SLEEPS = Rule(D, "suspends or hibernates the machine")
PACKAGES = Rule(M, "installs or removes packages")
USERS = Rule(M, "changes user accounts")
FORMATS = Rule(D, "formats a disk, erasing its data")
CLOCK = Rule(M, "changes the system clock")
WEB_SERVER = Rule(M, "starts or signals the web server")
VOLUMES = Rule(M, "changes storage volumes")
DESTROYS_VOLUMES = Rule(D, "destroys storage volumes and their data")

_SYSTEMCTL = ToolRule(
    value_options=opts("-H --host -M --machine -t --type -p --property -n --lines -o --output"),
    subcommands={
        **same(READS, "status show is-active is-enabled is-failed list-units list-unit-files cat"),
        **same(READS, "list-timers list-sockets list-dependencies list-jobs help"),
        **same(READS, "is-system-running get-default show-environment list-machines list-paths"),
        **same(READS, "list-automounts"),
        **same(SERVICE, "restart stop start reload try-restart reload-or-restart kill"),
        **same(SERVICE, "try-reload-or-restart freeze thaw"),
        **same(UNIT_CONFIG, "enable disable mask unmask daemon-reload reset-failed edit"),
        **same(UNIT_CONFIG, "set-property isolate link preset revert set-default reenable"),
        **same(UNIT_CONFIG, "daemon-reexec import-environment set-environment"),
        **same(UNIT_CONFIG, "unset-environment preset-all add-wants add-requires"),
        "clean": Rule(M, "deletes a service's state, cache or log directories"),
        **same(MACHINE_DOWN, "reboot poweroff halt kexec rescue emergency soft-reboot"),
        **same(MACHINE_DOWN, "exit switch-root"),
        "default": UNIT_CONFIG,
        **same(MACHINE_SLEEPS, "suspend hibernate hybrid-sleep suspend-then-hibernate sleep"),
    },
)
_PERF_VALUES = opts(
    "-e --event -p --pid -t --tid -C --cpu -r --repeat -I --interval-print -x --field-separator"
    " -G --cgroup -M --metrics -D --delay -u --uid"
)


def _perf_stat(args: list[str], upstream: str | None) -> Verdict:
    """`perf stat` counts events, of a process or of the command it runs."""
    if option_values(args, "o", opts("--output")):
        return WRITES_FILE
    if option_values(args, "", opts("--pre --post")):
        return opaque("runs commands before or after counting")
    words, skip = [], False
    for index, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "--":
            words = args[index + 1 :]
            break
        elif arg.startswith("-"):
            skip = arg in _PERF_VALUES
        else:
            words = args[index:]
            break
    return Runs(words=tuple(words)) if words else READS


_PACKAGES = ToolRule(
    subcommands={
        **same(READS, "list ls search show info policy view outdated freeze check"),
        **same(PACKAGES, "install i ci add remove rm uninstall un erase purge autoremove"),
        **same(PACKAGES, "update upgrade up dist-upgrade full-upgrade reinstall downgrade"),
        **same(PACKAGES, "del download publish link prune"),
    }
)

HOST_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **same(
        flags(
            pattern(r"\s-k\b", WEB_SERVER),
            pattern(r"\s(?:-t|configtest|-S|-M|-v|-V|status|fullstatus)\b", READS),
            default=WEB_SERVER,
        ),
        "apachectl apache2ctl",
    ),
    "logrotate": flags(pattern(r"\s-d\b", READS), default=Rule(M, "rotates logs")),
    "setenforce": Rule(M, "changes the SELinux mode"),
    "ntpdate": flags(pattern(r"\s-[a-zA-Z]*q\b", READS), default=CLOCK),
    "chronyc": ToolRule(
        patterns=(pattern(r"\s-[a-zA-Z]*m\b", CLOCK),),  # `-m`: several commands in one go
        value_options=opts("-h -p -f"),
        subcommands=same(
            READS,
            "tracking sources sourcestats activity ntpdata serverstats clients rtcdata smoothing"
            " selectdata authdata waitsync help",
        ),
        default=CLOCK,
    ),
    "journalctl": flags(
        pattern(
            r"\s--(?:vacuum-\w+|rotate|flush|relinquish-var|setup-keys|update-catalog)\b",
            Rule(M, "rotates logs"),
        )
    ),
    "dmesg": flags(
        pattern(
            r"\s(?:-[a-zA-Z]*[cCDEn]|--clear|--read-clear|--console-\w+)(?=\s|$)",
            Rule(M, "clears logs"),
        )
    ),
    "date": flags(pattern(r"\s(?:-s|--set)\b|\s\d{8,12}(?:\.\d\d)?(?:\s|$)", CLOCK)),
    "hostname": flags(pattern(r"\s(?:[^-\s]|-F\b|--file\b)", Rule(M, "renames the host"))),
    "sysctl": flags(
        pattern(
            r"\s(?:-[a-zA-Z]*w|--write|-p|-f|--load|--system)\b|\s[a-z][\w./]*=",
            Rule(M, "changes kernel settings"),
        )
    ),
    "mount": flags(pattern(r"\s(?:[^-\s]|-a\b|--all\b|--bind\b|--move\b)", DISK)),
    **same(DISK, "umount swapoff"),
    **same(flags(pattern(r"\s(?:-[a-zA-Z]*l|--list)\b", READS), default=DISK), "fdisk gdisk"),
    "sfdisk": flags(
        pattern(
            r"\s(?:-[a-zA-Z]*[rNAaBb]|--(?:reorder|delete|activate|part-\S+|relocate|backup\S*"
            r"|move-data|append|disk-id|label\S*|wipe\S*))\b",
            DISK,
        ),
        pattern(
            r"\s(?:-[lsdJVFT]|--(?:list|show-size|dump|json|verify|list-free|list-types))\b", READS
        ),
        default=DISK,
    ),
    "parted": flags(
        pattern(r"\s(?:-[a-zA-Z]*l|--list)\b", READS),
        pattern(r"^\s+(?:-\S+\s+)*/dev/\S+\s+(?:unit\s+\S+\s+)?(?:print|p)(?:\s+\w+)?\s*$", READS),
        default=DISK,
    ),
    "blockdev": flags(
        pattern(r"^(?:\s+(?:--get\S*|--report|-v|-q|/dev/\S+))+\s*$", READS), default=DISK
    ),
    "tune2fs": flags(pattern(r"^\s+-l\s+\S+\s*$", READS), default=DISK),
    **same(
        READS, "dumpe2fs xfs_info pvs vgs lvs pvdisplay vgdisplay lvdisplay lvscan vgscan pvscan"
    ),
    **same(DESTROYS_VOLUMES, "lvremove vgremove pvremove lvreduce"),
    **same(VOLUMES, "lvcreate lvextend lvresize lvrename lvchange lvconvert vgcreate vgextend"),
    **same(VOLUMES, "vgreduce vgchange vgrename pvcreate pvresize pvmove pvchange"),
    "zfs": ToolRule(
        subcommands={
            **same(READS, "list get holds userspace groupspace projectspace diff version"),
            "destroy": Rule(D, "destroys a ZFS dataset and its data"),
            "rollback": Rule(D, "rolls a ZFS dataset back, discarding newer data"),
        },
        default=VOLUMES,
    ),
    "zpool": ToolRule(
        subcommands={
            **same(READS, "list status iostat get history version"),
            **same(Rule(D, "destroys a ZFS pool and its data"), "destroy labelclear"),
        },
        default=VOLUMES,
    ),
    "smartctl": flags(
        pattern(r"\s(?:-[a-zA-Z]*[tsoSX]\b|--(?:test|smart|offlineauto|saveauto|abort|set))", DISK)
    ),
    "mdadm": flags(
        pattern(
            r"\s(?!(?:-[DEQsvbY]+|--(?:detail|examine|query|detail-platform|scan|verbose|brief"
            r"|export))(?:\s|$))-",
            DISK,
        ),
        pattern(r"\s(?:-[a-zA-Z]*[DEQ]|--(?:detail|examine|query|detail-platform))\b", READS),
        default=DISK,
    ),
    "perf": ToolRule(
        subcommands={
            "stat": ToolRule(check=_perf_stat),
            **same(READS, "top list report annotate version help evlist buildid-list"),
        }
    ),
    "swapon": flags(pattern(r"\s(?:-s|--show|--summary)\b", READS), pattern(r"\s\S", DISK)),
    **same(FORMATS, "mkfs mke2fs mkswap wipefs blkdiscard"),
    **same(Rule(M, "changes loaded kernel modules"), "modprobe rmmod insmod"),
    **same(MACHINE_DOWN, "shutdown reboot halt poweroff"),
    **same(
        flags(pattern(r"\s[06]\b", MACHINE_DOWN), default=Rule(M, "changes runlevel")),
        "init telinit",
    ),
    "systemctl": _SYSTEMCTL,
    "service": ToolRule(
        verb_index=1,
        subcommands={
            "status": READS,
            **same(SERVICE, "start stop restart reload force-reload try-restart condrestart"),
        },
    ),
    "hostnamectl": objects(Rule(M, "renames the host"), "status", "set-hostname hostname"),
    "timedatectl": objects(
        CLOCK,
        "status show list-timezones timesync-status show-timesync",
        "set-time set-timezone set-ntp set-local-rtc",
    ),
    "loginctl": objects(
        Rule(M, "ends or changes login sessions"),
        "list-sessions list-users list-seats session-status show-session user-status show-user"
        " seat-status show-seat",
        "terminate-session terminate-user kill-session kill-user lock-session unlock-session",
    ),
    "busctl": objects(
        Rule(M, "calls or changes system services over D-Bus"),
        "list status tree introspect monitor get-property",
        "call set-property emit capture",
    ),
    "coredumpctl": objects(opaque("runs a debugger or writes a core dump"), "list info", "dump"),
    "systemd-analyze": objects(
        Rule(M, "changes systemd settings"),
        "time blame critical-chain plot dot dump cat-config unit-files unit-paths calendar"
        " timespan timestamp verify security syscall-filter condition exit-status capability",
        "set-log-level set-log-target log-level log-target service-watchdogs",
    ),
    **same(READS, "systemd-cgls systemd-cgtop systemd-detect-virt systemd-delta"),
    "chage": flags(pattern(r"^\s+(?:-l|--list)\s+\S+\s*$", READS), default=USERS),
    **same(_PACKAGES, "apt apt-get yum dnf zypper apk brew snap pip pipx npm yarn pnpm gem"),
    "dpkg": flags(
        pattern(
            r"^(?:\s+(?:-[lLsSpcI]\S*|--(?:list|listfiles|status|search|print-avail|contents|info"
            r"|get-selections|audit|verify|print-architecture|version|help|compare-versions))"
            r"|\s+[^-\s]\S*)+\s*$",
            READS,
        ),
        default=PACKAGES,
    ),
    "dpkg-query": READS,
    "apt-cache": objects(
        PACKAGES, "policy show showpkg search depends rdepends madison stats pkgnames", ""
    ),
    "rpm": flags(
        pattern(
            r"\s(?:-[a-zA-Z]*[iUeF]|--(?:install|upgrade|erase|freshen|import|rebuilddb|setperms"
            r"|setugids|initdb|delete|restore))",
            PACKAGES,
        ),
        pattern(r"\s(?:-[a-zA-Z]*[qV]|--(?:query|verify|checksig|version))", READS),
        default=PACKAGES,
    ),
    **same(USERS, "useradd userdel usermod groupadd groupdel groupmod adduser deluser gpasswd"),
    **same(Rule(M, "changes a password"), "passwd chpasswd"),
    "nginx": flags(
        pattern(r"\s-s\b", WEB_SERVER),
        pattern(r"^(?:\s+(?:-[tTvVq]+|-[cpeg]\s+\S+))+\s*$", READS),
        default=WEB_SERVER,
    ),
}
