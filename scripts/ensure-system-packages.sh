#!/usr/bin/env bash
# The Debian packages the test suite uses: a JDK (xsd-schema-validator compiles its Java helper), PostgreSQL
# (a real server for the store tests), hledger (the independent P&L oracle), libxml2-utils (xmllint),
# chromium (pages tested in a real browser), nginx and openssl (the shipped nginx site in front of two instances).
# Checks only, unless given --install: then, as root with apt-get, it installs what is missing and says so (npm test
# and CI's .ci/run do); as any other user it names what is missing and how to install it. Nothing missing: exit 0.
set -euo pipefail
install=false
[ "${1:-}" = --install ] && install=true
missing=()
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
[ -x "${PG_BIN_DIR:-/usr/lib/postgresql/15/bin}/initdb" ] || missing+=(postgresql)
command -v hledger >/dev/null || missing+=(hledger)
command -v xmllint >/dev/null || missing+=(libxml2-utils)
[ -x /usr/bin/chromium ] || missing+=(chromium)                       # the browser tests (playwright-core drives it)
[ -x "${NGINX_BIN:-/usr/sbin/nginx}" ] || missing+=(nginx)              # deploy/nginx in front of two instances
command -v openssl >/dev/null || missing+=(openssl)                     # the test nginx's self-signed certificate
[ ${#missing[@]} -eq 0 ] && exit 0
if $install && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing the Debian packages the test suite needs (apt-get): ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Debian starts a cluster of its own; the tests start their own servers.
  service postgresql stop >/dev/null 2>&1 || true
  service nginx stop >/dev/null 2>&1 || true
else
  echo "Missing system packages for the test suite: ${missing[*]}; install them with: sudo bash scripts/ensure-system-packages.sh --install (Debian), or run npm run test:fast, which needs none of them." >&2
  exit 1
fi
