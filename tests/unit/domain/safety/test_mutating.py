"""State-changing commands are never suggested, even behind sudo or a wrapper."""

from __future__ import annotations

import pytest

from domain.safety import CommandSafety
from tests.unit.domain.safety.cases import DANGEROUS, MUTATING, READ, _verdict


# DESIGN §6: state-changing commands are never evidence to collect; solutions show them as actions.
@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm /tmp/lockfile", "deletes files"),
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
        ("kubectl delete pod api-7d9", "deletes pods"),
        ("kubectl -n prod delete pod api-7d9", "deletes pods"),
        ("kubectl delete pod api-7d9 -n ns", "deletes pods"),
        ("kubectl delete pods -l app=web -n shop", "a controller re-creates its own"),
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
    ("command", "safety"),
    [
        ("sudo tail /var/log/syslog", READ),
        ("sudo -u postgres psql -c 'SELECT 1'", READ),
        ("doas cat /var/log/messages", READ),
        ("pkexec ls /root", READ),
        ("sudo systemctl restart nginx", MUTATING),
        ("sudo -E rm -rf /srv", DANGEROUS),
        ("cat a | sudo tee /etc/hosts", MUTATING),
        ("su - postgres", DANGEROUS),
        ("sudo -i", DANGEROUS),
        ("sudo -l", READ),
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
        ("strace -p 1234", MUTATING),
        ("strace -f -e trace=open ls /etc", READ),
        ("ssh web1 'tail -f /var/log/app.log'", READ),
        ("ssh web1", MUTATING),
        ("setsid rm -rf /srv", DANGEROUS),
        ("systemd-cat -t job rm -rf /srv", DANGEROUS),
        ("parallel rm ::: a.log b.log", MUTATING),
        ("parallel -j 4 'rm -rf {}' ::: a b", DANGEROUS),
        ("toybox rm -rf /srv", DANGEROUS),
        ("nsenter -t 1 -n ss -tlnp", READ),
        ("nsenter -t 1 -m rm -rf /srv", DANGEROUS),
        ("command -v rm", READ),
    ],
)
def test_wrappers_classify_the_command_they_run(command: str, safety: CommandSafety) -> None:
    assert _verdict(command).safety is safety


# Fail closed: what the validator cannot check is never shown under "Run (read-only)".
@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("some-internal-tool --check", "is not a command known to be read-only"),
        ("./healthcheck.sh", "runs a script the validator cannot inspect"),
        ("/opt/tools/check.py --all", "runs a script the validator cannot inspect"),
        ("docker frobnicate", "is not a known read-only docker subcommand"),
        ("docker swarm ls", "changes the swarm"),
        ("kubectl frobnicate pods", "is not a known read-only kubectl subcommand"),
        ("bash healthcheck.sh", "runs a script the validator cannot inspect"),
        ("python3 check.py", "runs a script the validator cannot inspect"),
        ("source ~/.profile", "runs a script the validator cannot inspect"),
        ("python -c 'print(1)'", "runs inline code the validator cannot inspect"),
        ("perl -ne 'print if /ERROR/' app.log", "runs inline code the validator cannot inspect"),
        ("ruby -e 'puts 1'", "runs inline code the validator cannot inspect"),
        ("php -r 'echo 1;'", "runs inline code the validator cannot inspect"),
        ("node -e 'console.log(1)'", "runs inline code the validator cannot inspect"),
        ("mongosh --eval 'print(1)'", "runs inline code the validator cannot inspect"),
        (
            "curl -s https://x.example.com"
            " | python3 -c 'import json,sys; print(json.load(sys.stdin))'",
            "runs inline code the validator cannot inspect",
        ),
        ("python3 -m http.server", "is not a command known to be read-only"),
        ("bash", "starts an interactive shell"),
        ("python3", "starts an interactive shell"),
        ("psql -h db -U app", "opens an interactive database prompt"),
        ("redis-cli -h cache", "opens an interactive Redis prompt"),
        ("ssh web1", "opens an interactive shell on another host"),
        (";", "is not a command known to be read-only"),
    ],
)
def test_an_unknown_command_script_code_or_prompt_is_never_read_only(
    command: str, reason: str
) -> None:
    verdict = _verdict(command)
    assert verdict.safety is MUTATING
    assert reason in verdict.reason
    assert not verdict.is_safe
