#!/usr/bin/env bash
# Builds and tests this checkout on another Spring Boot line than the one the poms name (4.0.x), as a
# team starting on that line would use the starter:
#   scripts/boot-line.sh 4.1.2 verify -pl sample-agent-app -am
# copies the checkout's files (tracked and untracked, not what .gitignore leaves out) into
# target/boot-<version>/, sets spring-boot-starter-parent to <version> there and runs ./mvnw with the
# remaining arguments. Nothing is installed into the local Maven repository unless the arguments say
# so (do not: the snapshots would then be built on the other line).
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -ge 1 ] || { echo "usage: scripts/boot-line.sh <spring-boot version> <maven arguments...>" >&2; exit 2; }
version="$1"
shift

# Versions the Boot line manages that this machine's Maven mirror does not serve: Boot 4.1.2 builds
# with these (what it names is not published on the mirror).
properties=()
case "$version" in
  4.1.*) properties=(-Dnetty.version=4.2.18.Final -Dkafka.version=4.3.1) ;;
esac

copy="target/boot-$version"
rm -rf "$copy"
mkdir -p "$copy"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$copy"
# the dashboard's browser test needs playwright-core, installed next to the sources (scripts/test.sh)
browser=sample-agent-app/src/test/browser/node_modules
[ ! -d "$browser" ] || ln -s "$(realpath "$browser")" "$copy/$browser"

parent="$(grep -n '<artifactId>spring-boot-starter-parent</artifactId>' "$copy/pom.xml" | cut -d: -f1)"
[ -n "$parent" ] || { echo "scripts/boot-line.sh: pom.xml names no spring-boot-starter-parent" >&2; exit 1; }
sed -i "$((parent + 1))s|<version>[^<]*</version>|<version>$version</version>|" "$copy/pom.xml"
grep -q "<version>$version</version>" "$copy/pom.xml" \
  || { echo "scripts/boot-line.sh: could not set the parent's version in $copy/pom.xml" >&2; exit 1; }
echo "scripts/boot-line.sh: building on Spring Boot $version in $copy"
cd "$copy"
./mvnw -B "${properties[@]}" "$@"
