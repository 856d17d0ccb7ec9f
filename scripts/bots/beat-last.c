/* A bot for `roshambo bot --exec ./beat-last` (docs/BOTS.md): it plays what beats the
 * weapon its opponent played last, and the first weapon of the ruleset before that.
 * Build: cc -o beat-last scripts/bots/beat-last.c */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

/* The first weapon whose list in "beats" names `loser`, or NULL. */
static const char *beater(const char *line, const char *loser, char *out, size_t size) {
  const char *beats = strstr(line, "\"beats\":{");
  char quoted[32];
  snprintf(quoted, sizeof quoted, "\"%s\"", loser);
  for (const char *w = beats ? beats + 9 : NULL; w && *w == '"'; ) {
    const char *name_end = strchr(w + 1, '"'), *list_end = strchr(w, ']');
    if (!name_end || !list_end) return NULL;
    const char *hit = strstr(name_end, quoted);
    if (hit && hit < list_end && (size_t)(name_end - w - 1) < size) {
      snprintf(out, size, "%.*s", (int)(name_end - w - 1), w + 1);
      return out;
    }
    w = list_end[1] == ',' ? list_end + 2 : NULL;
  }
  return NULL;
}

int main(void) {
  char *line = NULL, start[4096] = "", last[32] = "", answer[32];
  size_t capacity = 0;
  while (getline(&line, &capacity, stdin) > 0) {
    if (strstr(line, "\"type\":\"start\"")) {
      snprintf(start, sizeof start, "%s", line);
      last[0] = '\0';
    } else if (strstr(line, "\"type\":\"result\"")) {
      const char *them = strstr(line, "\"them\":\"");
      if (them) sscanf(them + 8, "%31[a-z]", last);
    } else if (strstr(line, "\"type\":\"pick\"")) {
      const char *pick = last[0] ? beater(start, last, answer, sizeof answer) : NULL;
      if (!pick && sscanf(strstr(start, "\"weapons\":[\"") + 12, "%31[a-z]", answer) == 1)
        pick = answer;
      printf("%s\n", pick ? pick : "rock");
      fflush(stdout);
    }
  }
  return 0;
}
