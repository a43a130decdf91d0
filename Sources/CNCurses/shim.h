#ifndef BEACON_CNCURSES_SHIM_H
#define BEACON_CNCURSES_SHIM_H
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <curses.h>
#include <signal.h>
#include <stdio.h>

/* What Swift cannot import from curses.h (macros, non-Sendable globals). */
static inline WINDOW *beacon_stdscr(void) { return stdscr; }
static inline int beacon_lines(void) { return LINES; }
static inline int beacon_cols(void) { return COLS; }
static inline int beacon_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int beacon_getmaxx(WINDOW *w) { return getmaxx(w); }
static inline int beacon_color_pair(int n) { return COLOR_PAIR(n); }
static inline int beacon_a_bold(void) { return A_BOLD; }
static inline int beacon_a_reverse(void) { return A_REVERSE; }
static inline int beacon_a_dim(void) { return A_DIM; }
static inline int beacon_a_underline(void) { return A_UNDERLINE; }
static inline int beacon_a_normal(void) { return A_NORMAL; }
static inline int beacon_a_standout(void) { return A_STANDOUT; }
static inline int beacon_wattrset(WINDOW *w, int attrs) { return wattrset(w, attrs); }
static inline WINDOW *beacon_curscr(void) { return curscr; }
/* newterm on the process's own stdout/stdin: unlike initscr it returns NULL for an
   unusable TERM instead of printing and exiting. */
static inline SCREEN *beacon_newterm(const char *term) { return newterm(term, stdout, stdin); }
/* Signal dispositions (SIG_IGN/SIG_DFL are casts Swift cannot import). Ignoring SIGINT and
   SIGTERM before newterm also keeps ncurses from installing its own handlers for them. */
static inline void beacon_signal_ignore(int sig) { signal(sig, SIG_IGN); }
static inline void beacon_signal_default(int sig) { signal(sig, SIG_DFL); }
#endif
