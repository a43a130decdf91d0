#ifndef BEACON_CNCURSES_SHIM_H
#define BEACON_CNCURSES_SHIM_H
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <curses.h>

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
#endif
