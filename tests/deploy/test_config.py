"""The deployment files agree with the server on who the client is: nginx writes the address it
saw into X-Forwarded-For (not appended to what the client sent), and the replicas believe that
header from nginx alone and sign cookies with one key."""

from __future__ import annotations

import re
from pathlib import Path

from app.server.clients import client_address, trusted_networks
from app.settings import AppSettings

ROOT = Path(__file__).resolve().parents[2]


def test_nginx_names_the_address_it_saw():
    conf = (ROOT / "deploy" / "nginx" / "gradviz.conf").read_text()
    headers = re.findall(r"proxy_set_header\s+X-Forwarded-For\s+(\S+);", conf)
    assert headers and set(headers) == {"$remote_addr"}  # in every location that sets it


def test_the_replicas_trust_nginx_alone_and_share_a_signing_key(monkeypatch):
    unit = (ROOT / "deploy" / "systemd" / "gradviz@.service").read_text()
    (trusted,) = re.findall(r"^Environment=GRADVIZ_TRUSTED_PROXIES=(\S+)$", unit, re.M)
    assert re.search(r"^EnvironmentFile=/etc/gradviz/secret.env$", unit, re.M)
    monkeypatch.setenv("GRADVIZ_TRUSTED_PROXIES", trusted)
    nets = trusted_networks(AppSettings().trusted_proxies)
    conf = (ROOT / "deploy" / "nginx" / "gradviz.conf").read_text()
    upstreams = re.findall(r"server (\d+\.\d+\.\d+\.\d+):\d+", conf)
    for peer in set(upstreams):  # nginx reaches the replicas from the same loopback address
        assert client_address(peer, ["203.0.113.5"], nets) == "203.0.113.5"
    assert client_address("198.51.100.7", ["203.0.113.5"], nets) == "198.51.100.7"
