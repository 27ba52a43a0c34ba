"""Secrets never reach a shared channel: commands that print them are refused, the rest are not."""

from __future__ import annotations

import pytest

from tests.unit.domain.safety.cases import DANGEROUS, READ, _verdict

PRINTS_SECRETS = "reveals secret values, printing them into the channel"


@pytest.mark.parametrize(
    "command",
    [
        "kubectl get secret,cm -o yaml",
        "kubectl get cm,secret -n prod -o json",
        "kubectl get Secret db -o yaml",
        "kubectl get secrets.v1 db -oyaml",
        "kubectl get secret/db -o=jsonpath='{.data.password}'",
        "kubectl get secret db --template={{.data.password}}",
        "kubectl get secret db -o go-template='{{.data}}'",
        "kubectl get secrets -A -o custom-columns=DATA:.data",
        "kubectl get --raw /api/v1/namespaces/prod/secrets",
        "kubectl get --raw=/api/v1/namespaces/prod/secrets/db",
        "kubectl get -f secret.yaml -o yaml",
        "kubectl -n prod get $(kubectl api-resources -o name | paste -sd,) -o yaml",
        "oc get secret db -o yaml",
        "kubectl config view --raw",
        "kubectl config view --flatten",
        "oc whoami -t",
        "oc whoami --show-token",
        "oc extract secret/db --to=-",
        "helm get values api",
        "helm get manifest api",
        "helm get all api",
        "aws secretsmanager get-secret-value --secret-id prod/db",
        "aws ssm get-parameter --name /prod/db/password --with-decryption",
        "aws ssm get-parameters-by-path --path /prod --with-decryption",
        "aws ecr get-login-password --region eu-west-1",
        "aws sts get-session-token",
        "aws eks get-token --cluster-name prod",
        "aws configure get aws_secret_access_key",
        "aws configure export-credentials",
        "gcloud secrets versions access latest --secret=db-password",
        "gcloud auth print-access-token",
        "az keyvault secret show --vault-name kv --name db",
        "az account get-access-token",
        "az storage account keys list -n acct",
        "az webapp config appsettings list -n api -g rg",
        "az acr credential show -n registry",
        "doctl kubernetes cluster kubeconfig show prod",
        "vault kv get secret/prod/db",
        "vault read secret/prod/db",
        "vault read -field=password database/creds/app",
        "vault token lookup",
        "vault print token",
        "consul acl token list",
        "consul acl token read -id 00000000",
        "nomad var get nomad/jobs/api",
        "etcdctl get /registry/secrets/prod/db",
        "etcdctl get --prefix /registry",
        "etcdctl get --prefix /",
        "terraform state pull",
        "terraform output -json",
        "terraform output -raw db_password",
        "terraform show -json",
        "pulumi stack output --show-secrets",
        "docker swarm join-token worker",
        "docker swarm unlock-key",
        "redis-cli CONFIG GET requirepass",
        "redis-cli CONFIG GET '*'",
        "wg showconf wg0",
        "nmcli -s connection show office-wifi",
        "openssl rsa -in server.pem",
        "openssl pkcs12 -in cert.p12 -nodes",
    ],
)
def test_commands_that_print_secrets_are_refused(command: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is DANGEROUS
    assert PRINTS_SECRETS in verdict.reason


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("cat /etc/shadow", "reads password hashes"),
        ("sudo cat /etc/shadow", "reads password hashes"),
        ("cat /etc/sh?dow", "reads password hashes"),
        ("cat /etc/sha*", "reads password hashes"),
        ("cat < /etc/shadow", "reads password hashes"),
        ("base64 /etc/gshadow", "reads password hashes"),
        ("grep root /etc/shadow", "reads password hashes"),
        ("cat /etc/passwd", "reads the system account list"),
        ("cat ~/.ssh/id_rsa", "reads private keys"),
        ("cat ~/.s*/id*", "reads private keys"),
        ("cat $HOME/.s?h/id_ed25519", "reads private keys"),
        ("cat /home/*/.ssh/*", "reads private keys"),
        ("less -i ~/.ssh/id_rsa", "reads private keys"),
        ("ssh -i ~/.ssh/id_rsa web1 cat ~/.ssh/id_rsa", "reads private keys"),
        ("ls ~/.ssh | xargs cat", "reads private keys"),
        ("find ~/.ssh -name 'id_*' -exec cat {} +", "reads private keys"),
        ("cat /etc/kubernetes/pki/apiserver.key", "reads private keys"),
        ("cat ~/.aws/credentials", "reads stored credentials"),
        ("cat ~/.kube/config", "reads stored credentials"),
        ("cat /etc/kubernetes/admin.conf", "reads stored credentials"),
        ("cat /var/run/secrets/kubernetes.io/serviceaccount/token", "reads stored credentials"),
        ("cat /root/.aws/cred*", "reads stored credentials"),
    ],
)
def test_printing_a_secret_file_is_refused(command: str, reason: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is DANGEROUS
    assert reason in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "grep nginx /etc/passwd",
        "getent passwd nginx",
        "stat /etc/shadow",
        "ls -l /etc/shadow",
        "ls -la ~/.ssh",
        "ls -la ~/.ssh/",
        "stat ~/.ssh/id_rsa",
        "sudo ls -la /root/.ssh",
        "ls /etc/*",
        "ssh -i ~/.ssh/id_ed25519 bastion uptime",
        "ssh -o IdentityFile=~/.ssh/deploy web1 uptime",
        "curl --cacert ca.pem --cert client.pem --key client-key.pem https://api.internal/health",
        "etcdctl --cacert=/etc/kubernetes/pki/etcd/ca.crt"
        " --cert=/etc/kubernetes/pki/etcd/server.crt"
        " --key=/etc/kubernetes/pki/etcd/server.key endpoint health",
        "kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes",
        "KUBECONFIG=/etc/kubernetes/admin.conf kubectl get nodes",
        "openssl s_client -connect api:443 -cert client.crt -key client.key",
        "openssl x509 -in cert.pem -noout -dates",
        "openssl rsa -in server.pem -pubout",
        "kubectl get secrets",
        "kubectl get secrets -o name",
        "kubectl get secret db -o wide",
        "kubectl describe secret db",
        "kubectl get configmap app -o yaml",
        "kubectl config view",
        "aws ssm get-parameter --name /prod/feature-flag",
        "aws secretsmanager list-secrets",
        "az keyvault secret list --vault-name kv",
        "vault kv list secret/prod",
        "vault status",
        "etcdctl get --prefix --keys-only /registry/secrets",
        "etcdctl get /registry/pods/prod/api-1",
        "helm get notes api",
        "terraform output",
        "redis-cli CONFIG GET maxmemory",
        "wg show",
    ],
)
def test_looking_at_secrets_without_printing_them_stays_read_only(command: str) -> None:
    verdict = _verdict(command)
    assert verdict.safety is READ, verdict.reason
