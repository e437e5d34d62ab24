# Sourced by scripts/setup.sh and scripts/test.sh: make sure a program is there, installing its package
# where this machine allows it (Debian/Ubuntu: apt-get as root or with passwordless sudo; macOS: Homebrew),
# else stop at once (exit 1) and print the one command that would install it. Idempotent and quiet when
# everything is already there, so both commands can run in either order, any number of times.

say() { printf '[%s] %s\n' "${BATON_SCRIPT:-baton}" "$*" >&2; }

_apt_updated=
_install() { # _install DEBIAN_PKG BREW_PKG
  local deb="$1" brew="$2"
  if command -v apt-get >/dev/null 2>&1; then
    local sudo=
    if [ "$(id -u)" != 0 ]; then
      if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo='sudo -n'; else
        say "missing: $deb — install it with:  sudo apt-get install -y $deb"
        exit 1
      fi
    fi
    say "installing $deb (apt-get)…"
    export DEBIAN_FRONTEND=noninteractive
    if [ -z "$_apt_updated" ]; then $sudo apt-get update -qq >/dev/null || true; _apt_updated=1; fi
    if ! $sudo apt-get install -y -qq "$deb" >/dev/null; then
      say "apt-get could not install $deb — install it with:  sudo apt-get install -y $deb"
      exit 1
    fi
  elif [ "$(uname -s)" = Darwin ] && command -v brew >/dev/null 2>&1 && [ -n "$brew" ]; then
    say "installing $brew (Homebrew)…"
    brew install "$brew" >/dev/null || { say "brew could not install $brew — run:  brew install $brew"; exit 1; }
  else
    case "$(uname -s)" in
      Darwin) say "missing: ${brew:-$deb} — install Homebrew (https://brew.sh), then:  brew install ${brew:-$deb}" ;;
      *) say "missing: $deb — install it with your package manager (Debian/Ubuntu:  sudo apt-get install -y $deb)" ;;
    esac
    exit 1
  fi
}

# need_tmux: tmux on PATH.
need_tmux() {
  command -v tmux >/dev/null 2>&1 || _install tmux tmux
  command -v tmux >/dev/null 2>&1 || { say 'tmux is still not on PATH after installing it'; exit 1; }
}

# need_chromium: a Chromium for the browser tests ($BATON_CHROMIUM names one, else /usr/bin/chromium).
need_chromium() {
  if [ -n "${BATON_CHROMIUM:-}" ]; then
    [ -x "$BATON_CHROMIUM" ] || { say "BATON_CHROMIUM=$BATON_CHROMIUM is not an executable"; exit 1; }
    return
  fi
  [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || _install chromium ''
}

# need_postgres: PostgreSQL's server programs (initdb, pg_ctl) for the PostgreSQL bus tests.
need_postgres() {
  if [ -n "${BATON_PG_BIN:-}" ]; then
    [ -x "$BATON_PG_BIN/initdb" ] || { say "BATON_PG_BIN=$BATON_PG_BIN has no initdb"; exit 1; }
    return
  fi
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || _install postgresql postgresql
}

# need_iproute2: `ip`, for the test that puts a machine in its own network namespace.
need_iproute2() {
  command -v ip >/dev/null 2>&1 || _install iproute2 ''
}

# need_systemd_analyze: `systemd-analyze`, for the test that verifies the unit `baton service install` writes
# (Linux only: macOS gets a launchd plist, checked as text).
need_systemd_analyze() {
  [ "$(uname -s)" = Linux ] || return 0
  command -v systemd-analyze >/dev/null 2>&1 || _install systemd ''
}

# need_node_modules: npm ci when node_modules is missing or older than package-lock.json.
need_node_modules() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say 'installing dependencies (npm ci)…'
    npm ci --no-audit --no-fund --loglevel=error >&2
  fi
}

# need_build: dist/ built from the current sources.
need_build() {
  if [ ! -f dist/cli.js ] || [ ! -f dist/web/app.js ] || [ -n "$(find src web -newer dist/cli.js \( -name '*.ts' -o -name '*.html' -o -name '*.css' \) -print -quit)" ]; then
    say 'building…'
    npm run --silent build >&2
  fi
}
