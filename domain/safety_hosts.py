"""Command tables for services, packages, users, disks, the kernel, clock, logs, web servers."""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety_rules import (
    READS,
    D,
    M,
    Rule,
    ToolRule,
    flags,
    objects,
    opts,
    pattern,
    same,
)

SERVICE = Rule(M, "starts, stops or restarts a service")
UNIT_CONFIG = Rule(M, "changes how a service starts")
MACHINE_DOWN = Rule(D, "shuts down or reboots the machine")
PACKAGES = Rule(M, "installs or removes packages")
USERS = Rule(M, "changes user accounts")
DISK = Rule(M, "changes disk partitions or mounts")
FORMATS = Rule(D, "formats a disk, erasing its data")
CLOCK = Rule(M, "changes the system clock")

_SYSTEMCTL = ToolRule(
    value_options=opts("-H --host -M --machine -t --type -p --property -n --lines -o --output"),
    subcommands={
        **same(READS, "status show is-active is-enabled is-failed list-units list-unit-files cat"),
        **same(READS, "list-timers list-sockets list-dependencies list-jobs help"),
        **same(SERVICE, "restart stop start reload try-restart reload-or-restart kill"),
        **same(UNIT_CONFIG, "enable disable mask unmask daemon-reload reset-failed edit"),
        **same(UNIT_CONFIG, "set-property isolate link preset revert"),
        **same(MACHINE_DOWN, "reboot poweroff halt kexec rescue emergency"),
    },
)
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
            pattern(r"\s(?:-t|configtest|-S|-M|-v|-V|status|fullstatus)\b", READS),
            default=Rule(M, "starts or signals the web server"),
        ),
        "apachectl apache2ctl",
    ),
    "logrotate": flags(pattern(r"\s-d\b", READS), default=Rule(M, "rotates logs")),
    "setenforce": Rule(M, "changes the SELinux mode"),
    "ntpdate": flags(pattern(r"\s-[a-zA-Z]*q\b", READS), default=CLOCK),
    "chronyc": flags(pattern(r"\s(?:makestep|settime|burst|offline|online|add|delete)\b", CLOCK)),
    "journalctl": flags(
        pattern(
            r"\s--(?:vacuum-\w+|rotate|flush|relinquish-var|setup-keys)\b", Rule(M, "rotates logs")
        )
    ),
    "dmesg": flags(
        pattern(
            r"\s(?:-[a-zA-Z]*[cCDEn]|--clear|--read-clear|--console-\w+)(?=\s|$)",
            Rule(M, "clears logs"),
        )
    ),
    "date": flags(pattern(r"\s(?:-s|--set)\b", CLOCK)),
    "hostname": flags(pattern(r"\s(?:[^-\s]|-F\b|--file\b)", Rule(M, "renames the host"))),
    "sysctl": flags(
        pattern(
            r"\s(?:-[a-zA-Z]*w|--write|-p|--load|--system)\b|\s[a-z][\w./]*=",
            Rule(M, "changes kernel settings"),
        )
    ),
    "mount": flags(pattern(r"\s(?:[^-\s]|-a\b|--all\b|--bind\b|--move\b)", DISK)),
    **same(DISK, "umount swapoff fdisk parted sfdisk gdisk"),
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
    "timedatectl": objects(CLOCK, "status show list-timezones", "set-time set-timezone set-ntp"),
    **same(_PACKAGES, "apt apt-get yum dnf zypper apk brew snap pip pipx npm yarn pnpm gem"),
    "dpkg": flags(pattern(r"\s(?:-[irP]|--install|--remove|--purge|--unpack)\b", PACKAGES)),
    **same(USERS, "useradd userdel usermod groupadd groupdel groupmod adduser deluser gpasswd"),
    **same(Rule(M, "changes a password"), "passwd chpasswd"),
    "nginx": flags(
        pattern(r"\s-[tTvV]\b", READS), default=Rule(M, "starts or signals the web server")
    ),
}
