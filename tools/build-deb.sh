#!/usr/bin/env bash
# Builds the Debian package nbgw_<version>_<arch>.deb (docs/packaging.md):
#
#   1. the static release build of nbgw and nbgwd (tools/build-release.sh);
#   2. the version, read back from the built `nbgw --version` (its one source: NBGWVersion in
#      Sources/NBGWCore/NBGWVersion.swift);
#   3. man pages nbgw(1) and nbgwd(8) from the argument parser's manual plugin
#      (`swift package generate-manual`), nbgwd.toml(5) from packaging/man/;
#   4. bash, zsh and fish completions from the built programs (--generate-completion-script);
#   5. dpkg-buildpackage with debhelper over packaging/debian/ (maintainer scripts, conffile,
#      shlibs dependencies), then lintian.
#
# Usage: tools/build-deb.sh [OUTDIR]      (default out/deb; prints the .deb's path on its last line)
# Environment:
#   NBGW_DEB_REBUILD=N   a rebuild of the same release: version <version>+bN (what dpkg takes as newer)
#   NBGW_DEB_MAINTAINER  the Maintainer field (default: the placeholder below)
#   SCRATCH_PATH         passed to tools/build-release.sh
# Installs dpkg-dev, debhelper, fakeroot and lintian when missing (apt-get, idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "${1:-out/deb}" && cd "${1:-out/deb}" && pwd)

log() { echo "build-deb: $*" >&2; }

# --- Debian's tools ---------------------------------------------------------------------------
needed=(dpkg-dev debhelper fakeroot lintian)
missing=()
for package in "${needed[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    log "installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# --- 1. the release build ---------------------------------------------------------------------
log "release build (tools/build-release.sh nbgwd nbgw)"
bin=$(tools/build-release.sh nbgwd nbgw | tail -1)
for program in nbgw nbgwd; do
    [ -x "$bin/$program" ] || { log "no $bin/$program after the release build" >&2; exit 1; }
done

# --- 2. the version ---------------------------------------------------------------------------
upstream=$("$bin/nbgw" --version)
[ "$("$bin/nbgwd" --version)" = "$upstream" ] || { log "nbgw and nbgwd disagree on their version" >&2; exit 1; }
[[ "$upstream" =~ ^[0-9]+(\.[0-9]+)*$ ]] || { log "version '$upstream' is not digits and dots" >&2; exit 1; }
version=$upstream
[ -n "${NBGW_DEB_REBUILD:-}" ] && version="$upstream+b$NBGW_DEB_REBUILD"
arch=$(dpkg --print-architecture)
log "version $version ($arch)"

work="$out/build/nbgw-$version"
rm -rf "$work"
mkdir -p "$work"/stage/{bin,man,completions,systemd,udev,etc} "$work"/stage/doc/{docs/at-logs,examples,udev-rules}
stage="$work/stage"
install -m 0755 "$bin/nbgw" "$bin/nbgwd" "$stage/bin/"

# --- 3. man pages -----------------------------------------------------------------------------
# The date on the pages: the last commit's, so that a rebuild of the same commit is identical.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
# The plugin builds the package's products in the configuration it is given and runs the
# argument parser's generate-manual tool on every one of them with the same arguments; debug is
# what the tests build anyway. One run per section: nbgw is a user command (1), nbgwd a daemon (8).
manual() {
    local section=$1 program=$2
    local plugin_out="${SCRATCH_PATH:-.build}/plugins/GenerateManual/outputs/$program"
    rm -rf "$plugin_out"
    swift package ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"} plugin generate-manual \
        --configuration debug --section "$section" --date "$date" >&2
    [ -f "$plugin_out/$program.$section" ] || { log "generate-manual wrote no $program.$section" >&2; exit 1; }
    cp "$plugin_out/$program.$section" "$stage/man/"
}
log "man pages (swift package generate-manual)"
# The generator drops every character that is not ASCII: help text must be ASCII, or the pages
# silently lose words.
for program in nbgw nbgwd; do
    if "$bin/$program" --experimental-dump-help | LC_ALL=C grep -q -P '[^\x00-\x7F]'; then
        log "$program's help text has characters the man page generator drops:" >&2
        "$bin/$program" --experimental-dump-help | LC_ALL=C grep -o -P '.{0,40}[^\x00-\x7F]+.{0,20}' >&2
        exit 1
    fi
done
manual 1 nbgw
manual 8 nbgwd
# Two corrections to the generator's pages: a blank line (a paragraph break in a command's
# discussion) is not mdoc, so it becomes .Pp; and nbgwd has no subcommands (only the parser's
# implicit `help`), so its synopsis loses the `subcommand` argument.
sed -i 's/^$/.Pp/' "$stage/man/nbgw.1" "$stage/man/nbgwd.8"
sed -i '/^\.Sh SYNOPSIS$/,/^\.Sh /{/^\.Ar subcommand$/d}' "$stage/man/nbgwd.8"
sed "s/@VERSION@/$upstream/" packaging/man/nbgwd.toml.5 >"$stage/man/nbgwd.toml.5"

# --- 4. completions ---------------------------------------------------------------------------
# The bash script is sourced by bash-completion, not run: its #! line goes.
for program in nbgw nbgwd; do
    "$bin/$program" --generate-completion-script bash | sed '1{/^#!/d}' >"$stage/completions/$program.bash"
    "$bin/$program" --generate-completion-script zsh >"$stage/completions/_$program"
    "$bin/$program" --generate-completion-script fish >"$stage/completions/$program.fish"
done

# --- the rest of the files --------------------------------------------------------------------
cp packaging/systemd/nbgwd.service packaging/systemd/nbgw.sysusers.conf packaging/systemd/nbgw.tmpfiles.conf \
    "$stage/systemd/"
cp udev-rules/90-nbgw.rules "$stage/udev/"
cp udev-rules/88-nbgw-scanners.rules "$stage/udev/"
cp packaging/nbgwd.toml "$stage/etc/nbgwd.toml"
cp README.md "$stage/doc/"
cp docs/*.md docs/*.yaml "$stage/doc/docs/"
cp docs/at-logs/*.md "$stage/doc/docs/at-logs/"
cp examples/nbgwd.toml "$stage/doc/examples/"
cp udev-rules/README.md "$stage/doc/udev-rules/"

# --- 5. the package ---------------------------------------------------------------------------
cp -r packaging/debian "$work/debian"
maintainer=${NBGW_DEB_MAINTAINER:-nbgw developers <nbgw-dev@example.org>}
sed -i "s|@MAINTAINER@|$maintainer|" "$work/debian/control"
# The commit the package is built from; "-dirty" when the work tree has changes not committed.
commit=$(git describe --always --dirty --exclude='*' 2>/dev/null || echo unknown)
{
    echo "nbgw ($version) unstable; urgency=medium"
    echo
    if [ "$version" = "$upstream" ]; then
        echo "  * nbgw $upstream (commit $commit)."
    else
        echo "  * Rebuild of nbgw $upstream (commit $commit)."
    fi
    echo
    echo " -- $maintainer  $(date -u -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
} >"$work/debian/changelog"

log "dpkg-buildpackage"
(cd "$work" && dpkg-buildpackage --build=binary --no-sign -us -uc >&2)
deb="$out/build/nbgw_${version}_${arch}.deb"
[ -f "$deb" ] || { log "dpkg-buildpackage made no $deb" >&2; exit 1; }
mv "$out/build/nbgw_${version}_${arch}.deb" "$out/"
mv "$out"/build/nbgw-dbgsym_"${version}"_"${arch}".*deb "$out/" 2>/dev/null || true
deb="$out/nbgw_${version}_${arch}.deb"

log "lintian"
# Errors fail the build; warnings and notes are printed for whoever reads the log.
if ! lintian --fail-on error --info "$deb" >&2; then
    log "lintian found errors in $deb" >&2
    exit 1
fi
echo "$deb"
