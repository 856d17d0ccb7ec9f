#!/bin/sh
# A bot for `roshambo bot --exec "sh scripts/bots/cycle.sh"` (docs/BOTS.md), in POSIX
# shell alone: it plays the ruleset's weapons in turn, from a different one each match.
while read -r line; do
  case "$line" in
    *'"type":"start"'*)
      weapons=${line#*\"weapons\":\[}     # "rock","paper","scissors"],"beats":…
      weapons=${weapons%%\]*}
      weapons=$(echo "$weapons" | tr -d '"' | tr ',' ' ')
      match=${line#*\"match\":}
      match=${match%%,*}
      ;;
    *'"type":"pick"'*)
      round=${line#*\"round\":}
      round=${round%%,*}
      set -- $weapons
      shift $(( (round + match) % $# ))
      echo "$1"
      ;;
  esac
done
