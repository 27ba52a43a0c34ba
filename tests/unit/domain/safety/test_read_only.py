"""Failing closed keeps the validator useful: the diagnostics an SRE runs stay read-only."""

from __future__ import annotations

import pytest

from tests.unit.domain.safety.cases import MUTATING, READ, _verdict


# Each of these was refused before; none of them changes anything.
@pytest.mark.parametrize(
    "command",
    [
        "curl --data-urlencode 'query=rate(http_requests_total[5m])' http://prom:9090/api/v1/query",
        "curl -s --data-urlencode 'query=up' -d start=1 -d end=2 -d step=60"
        " http://prom:9090/api/v1/query_range",
        "curl -s -XPOST http://loki:3100/loki/api/v1/query_range"
        " --data-urlencode 'query={app=\"x\"}'",
        "curl -s -H 'Content-Type: application/json' -d '{\"query\":{\"match_all\":{}}}'"
        " http://es:9200/logs-*/_search",
        "curl -G -d q=up http://x",
        "curl -G --data-urlencode 'query=up' http://prom:9090/api/v1/query",
        "aws logs start-query --log-group-name /aws/lambda/api --start-time 1700000000"
        " --end-time 1700003600 --query-string 'fields @message | limit 20'",
        "aws logs get-query-results --query-id 1234",
        "aws logs filter-log-events --log-group-name x --filter-pattern ERROR",
        "aws ecs describe-services --cluster prod --services deploy-api",
        "aws --region eu-west-1 ec2 describe-instances --instance-ids i-0abc",
        "fdisk -l",
        "sudo fdisk -l /dev/sda",
        "parted -l",
        "parted /dev/sda print",
        "awk '/DELETE FROM/ {n++} END {print n}' postgresql.log",
        "sed -n '/DROP TABLE/p' postgresql.log",
        "grep -c 'UPDATE users SET' postgresql.log",
        "grep nginx /etc/passwd",
        "stat /etc/shadow",
        "ls -la ~/.ssh",
        "ssh -i ~/.ssh/id_ed25519 bastion uptime",
    ],
)
def test_false_positives_of_the_old_validator_are_read_only(command: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is READ, verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "promtool query instant http://prom:9090 'up == 0'",
        "promtool query range --start=-1h http://prom:9090 'rate(x[5m])'",
        "promtool check config /etc/prometheus/prometheus.yml",
        "promtool check rules alerts.yml",
        "amtool alert query --alertmanager.url=http://am:9093",
        "amtool silence query",
        "etcdctl endpoint status --cluster -w table",
        "etcdctl endpoint health",
        "etcdctl member list",
        "etcdctl alarm list",
        "vault status",
        "vault kv list secret/",
        "vault kv metadata get secret/app",
        "consul members",
        "consul catalog services",
        "consul operator raft list-peers",
        "nomad status",
        "nomad job status api",
        "nomad alloc logs -stderr 1a2b",
        "nomad node status",
        "crictl ps -a",
        "crictl logs --tail 100 3f2a",
        "crictl inspect 3f2a",
        "ctr -n k8s.io containers ls",
        "iostat -xz 1 3",
        "vmstat 1 5",
        "mpstat -P ALL 1 3",
        "pidstat -d 1 3",
        "sar -n DEV 1 3",
        "mtr -rwc 10 api.example.com",
        "traceroute -n 10.0.0.1",
        "tracepath api.example.com",
        "nslookup api.example.com",
        "dig @10.0.0.2 api.example.com",
        "host api.example.com",
        "whois example.com",
        "ping -c 3 10.0.0.1",
        "ethtool eth0",
        "ethtool -S eth0",
        "ethtool -k eth0",
        "ethtool -i eth0",
        "lsblk -f",
        "blkid",
        "findmnt /var",
        "lscpu",
        "lsof -p 1234",
        "perf stat -a sleep 5",
        "perf stat -p 1234 -e cycles sleep 10",
        "perf top",
        "ss -tlnp",
        "ip a s",
        "ip -s link show eth0",
        "ip r",
        "ip route get 8.8.8.8",
        "ip neigh",
        "ip netns list",
        "ip monitor",
        "tc -s qdisc show dev eth0",
        "tc class ls dev eth0",
        "nft list ruleset",
        "iptables -t nat -nvL",
        "iptables -S",
        "firewall-cmd --list-all --zone=public",
        "conntrack -L",
        "nmcli dev status",
        "nmcli -t -f NAME,DEVICE con show --active",
        "nmcli device wifi list",
        "nc -zv db 5432",
        "echo ruok | nc zk-0 2181",
        "echo | openssl s_client -connect api:443 -servername api 2>/dev/null"
        " | openssl x509 -noout -dates",
        "openssl s_client -connect api:443 < /dev/null",
        "redis-cli -h set-cache.prod INFO",
        "redis-cli -h cache -p 6380 --no-auth-warning -a s3cret INFO memory",
        "redis-cli --bigkeys",
        "redis-cli --latency -h cache",
        "redis-cli SLOWLOG GET 10",
        "redis-cli CLIENT LIST",
        "redis-cli MEMORY USAGE session:1",
        "redis-cli -c CLUSTER NODES",
        "redis-cli HGETALL user:1",
        "redis-cli SCAN 0 MATCH 'session:*' COUNT 100",
        "redis-cli -p 26379 SENTINEL masters",
        "echo INFO | redis-cli -h cache",
        "mongosh --quiet --eval 'db.serverStatus().connections'",
        "mongosh --eval 'printjson(rs.status())'",
        "mongosh --eval 'db.orders.countDocuments({status: \"open\"})'",
        'psql -c "EXPLAIN ANALYZE SELECT * FROM orders WHERE id = 1"',
        'psql -c "EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM orders"',
        "psql -Atc 'SELECT count(*) FROM pg_stat_activity'",
        "psql -c '\\dt+'",
        "psql -l",
        "sqlite3 app.db '.tables'",
        "mysqladmin processlist",
        "pg_isready -h db",
        "git -c color.ui=always log --oneline -5",
        "git config --get remote.origin.url",
        "git remote -v",
        "git stash list",
        "git reflog -5",
        "helm get notes api",
        "helm diff upgrade api ./chart",
        "docker service ls",
        "docker stack services web",
        "docker compose --project-directory /srv/app ps",
        "terraform show",
        "kubectx",
        "kubens -c",
        "stern api --since 10m",
        "gcloud compute instances list --filter='name~web'",
        "gcloud logging read 'severity>=ERROR' --limit 20",
        "az vm list -g prod -o table",
        "az monitor metrics list --resource x --metric 'Percentage CPU'",
        "doctl compute droplet list",
        "systemd-analyze blame",
        "sfdisk -l /dev/sda",
        "tune2fs -l /dev/sda1",
        "mdadm --detail /dev/md0",
        "chage -l bob",
        "dpkg -l | grep nginx",
        "dpkg -s nginx",
        "rpm -qa | grep kernel",
        "apt-cache policy nginx",
        "date -u +%s",
        "chronyc sources -v",
        "nginx -T",
        "loginctl list-sessions",
        "python3 -m json.tool response.json",
        "command -v kubectl",
        "sudo -l",
    ],
)
def test_common_diagnostics_stay_read_only(command: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is READ, verdict.reason


def test_port_forward_on_loopback_is_read_only_as_it_changes_nothing_in_the_cluster() -> None:
    assert _verdict("kubectl port-forward svc/api 8080:80").safety is READ
    assert _verdict("kubectl -n prod port-forward pod/db-0 5432").safety is READ
    assert _verdict("kubectl proxy --port=8001").safety is READ


def test_port_forward_on_every_interface_is_refused_as_it_exposes_the_pod() -> None:
    assert _verdict("kubectl port-forward --address 0.0.0.0 svc/api 8080:80").safety is MUTATING
    assert _verdict("kubectl port-forward --address=localhost,10.0.0.5 svc/api 8080").safety is (
        MUTATING
    )


def test_strace_on_a_running_process_is_refused_as_it_can_stall_it() -> None:
    verdict = _verdict("strace -f -p 1234")
    assert verdict.safety is MUTATING
    assert "slow or stall" in verdict.reason


def test_perf_stat_is_read_only_as_it_only_counts_events() -> None:
    assert _verdict("perf stat -e cycles -p 1234 sleep 5").safety is READ
