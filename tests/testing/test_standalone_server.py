"""``python -m workloadbuilder.testing``: --port, --namespace, and the kubeconfig it prints."""

from __future__ import annotations

import socket
import subprocess
import sys

import yaml
from server_process import server_process


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
