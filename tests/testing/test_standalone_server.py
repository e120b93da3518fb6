"""``python -m workloadbuilder.testing``: --port, --namespace, and the kubeconfig it prints."""

from __future__ import annotations

import socket
import subprocess
import sys

import yaml
from server_process import server_kubeconfigs, server_process


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_port_and_namespaces_up_front() -> None:
    from kubernetes import client, config

    port = _free_port()
    with server_process("--port", str(port), "--namespace", "ml", "-n", "team-a") as kubeconfig:
        written = yaml.safe_load(kubeconfig.read_text())
        assert written["clusters"][0]["cluster"]["server"] == f"http://127.0.0.1:{port}"
        api = config.new_client_from_config(config_file=str(kubeconfig))
        try:
            names = {n.metadata.name for n in client.CoreV1Api(api).list_namespace().items}
        finally:
            api.close()
    assert names == {"default", "ml", "team-a"}
    assert not kubeconfig.exists()  # removed when the server stops


def test_a_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "workloadbuilder.testing", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")


def test_a_kubeconfig_per_identity_acts_as_that_service_account() -> None:
    # The refusal is kube-apiserver's forbiddenMessage (pkg/endpoints/handlers/responsewriters).
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    trainer = "system:serviceaccount:ml:trainer"
    args = ("--authorization-mode", "RBAC", "-n", "ml", "--kubeconfig-for", trainer)
    with server_kubeconfigs(*args, count=2) as (admin_path, trainer_path):
        written = yaml.safe_load(trainer_path.read_text())
        assert written["clusters"][0]["cluster"]["server"].startswith("https://127.0.0.1:")
        admin = config.new_client_from_config(config_file=str(admin_path))
        as_trainer = config.new_client_from_config(config_file=str(trainer_path))
        try:
            rbac = client.RbacAuthorizationV1Api(admin)
            rule = client.V1PolicyRule(api_groups=[""], resources=["pods"], verbs=["list"])
            role = client.V1Role(metadata=client.V1ObjectMeta(name="reader"), rules=[rule])
            rbac.create_namespaced_role("ml", role)
            binding = {
                "metadata": {"name": "reader"},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "Role",
                    "name": "reader",
                },
                "subjects": [{"kind": "ServiceAccount", "name": "trainer", "namespace": "ml"}],
            }
            rbac.create_namespaced_role_binding("ml", binding)
            core = client.CoreV1Api(as_trainer)
            assert core.list_namespaced_pod("ml").items == []
            try:
                core.list_namespaced_pod("default")
            except ApiException as exc:
                refused = (exc.status, yaml.safe_load(exc.body or "{}")["message"])
            else:
                refused = (200, "")
        finally:
            admin.close()
            as_trainer.close()
    assert refused == (
        403,
        f'pods is forbidden: User "{trainer}" cannot list resource "pods" in API group "" '
        'in the namespace "default"',
    )


def test_a_kubeconfig_per_identity_needs_rbac() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "workloadbuilder.testing", "--kubeconfig-for", "alice"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(
        "error: --kubeconfig-for needs --authorization-mode RBAC: without it every request is "
        "allowed, whoever sends it"
    )
