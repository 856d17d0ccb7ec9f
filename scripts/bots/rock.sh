#!/bin/sh
# A bot for `roshambo bot --exec "sh scripts/bots/rock.sh"` (docs/BOTS.md): rock, always.
while read -r line; do
  case "$line" in
    *'"type":"pick"'*) echo rock ;;
  esac
done
