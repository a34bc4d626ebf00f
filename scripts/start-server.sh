#!/bin/sh
# The server as make run and npm start start it: server/node-env's variables (unless already set)
# and server/node-flags' V8 flags on node's command line; each file says why.
set -e
cd "$(dirname "$0")/.."
for kv in $(grep -v '^#' server/node-env); do
  key=${kv%%=*}
  eval "[ -n \"\${$key+set}\" ]" || export "$kv"
done
# shellcheck disable=SC2046 # the flags are words
exec node $(grep -v '^#' server/node-flags) server/src/main.ts "$@"
