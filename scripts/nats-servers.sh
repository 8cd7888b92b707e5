#!/usr/bin/env bash
# Fetches and caches newer nats-server binaries from Debian's package suites, for running the tests
# on the servers users run (NATS_SERVER_BIN=<path>). Never installs anything: each suite gets its own
# apt configuration, sources list, package lists and download cache under the cache directory, the
# package is fetched with `apt-get download` from the mirror this machine already uses
# (/etc/apt/sources.list.d/*.sources) and unpacked there with `dpkg-deb -x`.
#   scripts/nats-servers.sh               trixie (2.10.x) and sid (newest, 2.15.x when written)
#   scripts/nats-servers.sh sid           only these suites
# Prints one line per suite on stdout: <suite> <version> <binary path> (progress goes to stderr).
# A suite already unpacked is not fetched again; delete its directory to fetch the suite's current
# package. NATS_SERVERS_CACHE moves the cache (default target/nats-servers).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="$(realpath -m "${NATS_SERVERS_CACHE:-target/nats-servers}")"
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(trixie sid)

fail() { echo "scripts/nats-servers.sh: $*" >&2; exit 1; }

mirror() {
  local uri
  uri="$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)"
  [ -n "$uri" ] || fail "no Debian mirror found (no 'URIs:' line in /etc/apt/sources.list.d/*.sources)"
  echo "$uri"
}

binary_of() { echo "$CACHE/$1/x/usr/sbin/nats-server"; }

version_of() { "$1" --version 2>/dev/null | awk '{ print $2 }'; }

fetch() {
  local suite="$1" dir="$CACHE/$1" uri
  uri="$(mirror)"
  rm -rf "$dir"
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/deb"
  echo "deb $uri $suite main" > "$dir/sources.list"
  # Read after the system's configuration: only the sources, lists and cache are private; the
  # update hooks of /etc/apt/apt.conf.d (PackageKit, appstream) are cleared so nothing else changes.
  cat > "$dir/apt.conf" <<EOF
Dir::Etc::sourcelist "$dir/sources.list";
Dir::Etc::sourceparts "/dev/null";
Dir::State::Lists "$dir/lists";
Dir::Cache "$dir/cache";
APT::Sandbox::User "root";
#clear APT::Update::Pre-Invoke;
#clear APT::Update::Post-Invoke;
#clear APT::Update::Post-Invoke-Success;
EOF
  echo "==> $suite: reading the package lists from $uri" >&2
  apt-get -q --error-on=any -c "$dir/apt.conf" update >&2 \
    || fail "could not read the package lists of '$suite' from $uri (network or mirror down?); see above"
  echo "==> $suite: downloading nats-server" >&2
  (cd "$dir/deb" && apt-get -q -c "$dir/apt.conf" download nats-server >&2) \
    || fail "could not download nats-server from '$suite' at $uri; see above"
  local deb
  deb="$(ls "$dir"/deb/nats-server_*.deb 2>/dev/null | head -1)"
  [ -n "$deb" ] || fail "apt-get download left no nats-server_*.deb in $dir/deb"
  dpkg-deb -x "$deb" "$dir/x.partial" || fail "could not unpack $deb"
  mv "$dir/x.partial" "$dir/x"
  rm -rf "$dir/lists" "$dir/cache"
}

for suite in "${suites[@]}"; do
  started=$(date +%s)
  binary="$(binary_of "$suite")"
  if [ -x "$binary" ] && [ -n "$(version_of "$binary")" ]; then
    echo "==> $suite: cached" >&2
  else
    fetch "$suite"
    [ -x "$binary" ] || fail "the nats-server package of '$suite' has no usr/sbin/nats-server"
    echo "==> $suite: fetched in $(( $(date +%s) - started )) s" >&2
  fi
  version="$(version_of "$binary")"
  [ -n "$version" ] || fail "$binary does not run here ('$binary --version' failed)"
  echo "$suite $version $binary"
done
