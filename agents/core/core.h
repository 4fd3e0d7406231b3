/*
 * pacman.agents._core: the compiled search core of pacman-ai.
 *
 * The rules of the classic game, successor generation, the built-in evaluations
 * that declare a core form (the registry, agents/declarations.py, lists them) and
 * ghost models (uniform, directional, and the arcade's personalities: chaser,
 * ambusher, flanker, shy), and the generic
 * expectiminimax of agents/search.py (max, min and chance nodes, transposition
 * table, alpha-beta, Star1), written again in C for speed. agents/compiled.py is
 * the only user: it builds a `Board` per layout and a `Searcher` per agent and
 * game, and checks that every answer is the Python engine's (docs/engine.md).
 *
 * Identical answers need identical floating-point operations: every sum, product
 * and quotient below is written in the order of the Python code it mirrors, and
 * the compiler is told not to contract a * b + c into a fused multiply-add
 * (setup.py passes -ffp-contract=off; the pragma says the same to compilers that
 * read it). Integer quantities (scores, distances, doubled coordinates) are exact.
 *
 * Positions follow pacman/state.py: the doubled grid, position p = x2 * S + y2
 * with S = 2 * height; a ghost is a key p * 5 + d, d its last direction (0-3 for
 * North, South, East, West; 4 for none); food and capsules are bitsets numbered
 * x * height + y. A state here is a row of 64-bit words:
 *
 *   [0] Pacman's position | status << 32 | (heading + 1) << 40    [1] the score (signed)
 *   [2 .. 2+n)  ghost i: key | scared timer << 32
 *   then the food words, then the capsule words.
 *
 * The heading is pacman/state.py's HEADING: 0-3 the direction of Pacman's last step, 4 before his first, kept
 * only in a game that tracks it; 0 in those bits means untracked, so such a game's words, hashes, node counts
 * and table are what they were before the core kept a heading.
 *
 * Memory: a Board holds per-layout tables; a Searcher holds its transposition
 * table (at most `table_size` entries, cleared when full, exactly as the Python
 * table) and nothing else between searches; each search allocates its scratch
 * and frees it before returning.
 */

/*
 * core.h: the private header of the compiled core. Each .c file in this folder mirrors one Python seam:
 *
 *   state.c       pacman/state.py, pacman/rules.py   the Board (a layout's move tables), successors, collisions
 *   ghosts.c      agents/ghosts.py                   the chance layer: uniform, directional and arcade probabilities
 *   evaluation.c  agents/evaluation.py               `better` (and `safe`, its other weights) and its bounds
 *   table.c       agents/search.py (_Table)          the transposition table
 *   search.c      agents/search.py                   the expectiminimax recursions, Star1, Star2, move ordering
 *   far.c         agents/expectimax.py               the far-ghost shortcut (PacmanGame.far_value)
 *   searcher.c    agents/compiled.py                 the Searcher type: Python states in and out, search()
 *   random.c      numpy.random                       SeedSequence and PCG64, bit for bit
 *   games.c       pacman/game.py, pacman/envs/        whole games stepped for the environments
 *   module.c      -                                  distance_order and the module itself
 *
 * Here: the types every file shares, and the small functions on the hot path (state words, cells, the table's
 * probe, the random stream's step) as static inline, so that splitting the files costs no call.
 */

#ifndef PACMAN_CORE_H
#define PACMAN_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define NO_DIRECTION 4
#define PLAYING 0
#define WON 1
#define LOST 2
#define KIND_MAX 0
#define KIND_MIN 1
#define KIND_CHANCE 2
#define EVAL_SCORE 0
#define EVAL_BETTER 1
/* The most ghosts the dot games' lookup takes (dot_chance); the games are built for at most 63 open cells. */
#define DOT_GHOSTS 64
/* The most dots whose every set the games may hold (DotGames.whole: pacman.agents.dot_games.MAX_WHOLE_DOTS or
   fewer), so that a set of dots is a game's number. */
#define DOT_WHOLE_DOTS 16
/* The evaluation kernels by number (EVAL_*), and the ghost kernels by number (GHOST_*: uniform; directional: a
   probability table by the best-move mask; arcade: the same table, the mask the one move aimed at a target), by
   the names pacman.agents.declarations uses; module.c publishes them. */
#define EVAL_KERNELS 2
#define EVAL_KERNEL_NAMES "score", "features"
#define GHOST_UNIFORM 0
#define GHOST_DIRECTIONAL 1
#define GHOST_ARCADE 2
#define GHOST_KERNELS 3
#define GHOST_KERNEL_NAMES "uniform", "directional", "arcade"
#define STOP_NONE 0
#define STOP_TIME 1
#define STOP_ERROR 2
/* How many distinct best-action sets a ghost with 1..4 legal actions can have: masks 1..15. */
#define MASKS 16

/* Doubled-grid unit vectors of North, South, East, West (x, y). */
static const int DX[4] = {0, 0, 1, -1};
static const int DY[4] = {1, -1, 0, 0};

/* Functions shared between the files of the core: not exported from the extension. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define CORE_INTERNAL __attribute__((visibility("hidden")))
#else
#define CORE_INTERNAL
#endif

/* ---------------------------------------------------------------- the clock */

static inline double
monotonic_seconds(void)
{
#ifdef _WIN32
    LARGE_INTEGER frequency, counter;
    QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&counter);
    return (double)counter.QuadPart / (double)frequency.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

static inline int
popcount64(uint64_t x)
{
#if defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_popcountll(x);
#else /* without the instruction, bit tricks beat a library call */
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline int
lowest_bit(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* ---------------------------------------------------------------- the board */

/* The rules and move tables of one layout. */
typedef struct {
    PyObject_HEAD
    int width, height, stride;     /* stride S = 2 * height */
    int cells;                     /* width * height: bits of a food or capsule set */
    int words;                     /* 64-bit words of one such set */
    int positions;                 /* 4 * width * height doubled-grid positions */
    int agents;                    /* agent start cells in the layout (Pacman first) */
    int *starts;                   /* doubled-grid position of each agent's start */
    unsigned char *wall;           /* wall[x * height + y] */
    unsigned char *pac_count;      /* Pacman's legal actions at a position ... */
    unsigned char *pac_action;     /* ... (5 per position: action index 0-4) */
    unsigned char *ghost_count;    /* a ghost's legal actions at a key ... */
    unsigned char *ghost_action;   /* ... (4 per key: direction 0-3) */
    /* per doubled-grid position p: p / stride, p % stride and the cell it counts as (cell_of), looked up so
       that no search step divides */
    int *x2_at, *y2_at, *cell_at;
    /* the rules' numbers, from pacman.rules */
    long long scared_time, food_points, win_points, ghost_points, lose_points, move_cost;
    int collision;                 /* collision distance on the doubled grid (Manhattan) */
} Board;

/* ---------------------------------------------------------------- states */

#define ST_PAC(s) ((int)((s)[0] & 0xffffffffu))
#define ST_STATUS(s) ((int)((s)[0] >> 32 & 0xff))
/* Pacman's heading: 0-3 (North, South, East, West), 4 before his first step, -1 in a game that does not track it */
#define ST_HEADING(s) ((int)((s)[0] >> 40) - 1)
#define HEADING_SHIFT 40
#define PAC_STATUS_BITS 0xffffffffffULL
#define ST_SCORE(s) ((long long)(s)[1])
#define ST_GHOST(s, i) ((int)((s)[2 + (i)] & 0xffffffffu))
#define ST_TIMER(s, i) ((long long)((s)[2 + (i)] >> 32))
#define ST_FOOD(s, n) ((s) + 2 + (n))
#define ST_CAPS(s, n, w) ((s) + 2 + (n) + (w))

/* Pacman's position and the status; the heading stays as it is. */
static inline void
set_pac_status(uint64_t *s, int pac, int status)
{
    s[0] = (uint64_t)(uint32_t)pac | (uint64_t)(uint8_t)status << 32 | (s[0] & ~PAC_STATUS_BITS);
}

/* Pacman's heading (0-4), or -1: untracked. */
static inline void
set_heading(uint64_t *s, int heading)
{
    s[0] = (s[0] & PAC_STATUS_BITS) | (uint64_t)(uint32_t)(heading + 1) << HEADING_SHIFT;
}

static inline void
set_score(uint64_t *s, long long score)
{
    s[1] = (uint64_t)score;
}

static inline void
set_ghost(uint64_t *s, int i, int key, long long timer)
{
    s[2 + i] = (uint64_t)(uint32_t)key | (uint64_t)(uint32_t)timer << 32;
}

/* ---------------------------------------------------------------- the searcher */

/* A slot of the transposition table, 8 bytes: eight to a cache line, so a probe is one memory access. */
typedef struct {
    uint32_t check;                    /* the high half of the entry's hash */
    uint32_t entry;                    /* entry index + 1; 0: empty */
} Slot;

typedef struct {
    PyObject_HEAD
    Board *board;
    int ghosts, agents, words, size;   /* size: words of one state */
    int evaluation;                    /* EVAL_SCORE or EVAL_BETTER */
    int minimise;                      /* ghosts are min layers (else chance layers) */
    int prune;                         /* alpha-beta, and Star1 where bounds are given */
    int star2;                         /* Star2: probing, null windows, each chance node's own bounds */
    int ordering;                      /* the table's best move first at max nodes, shallower depths first */
    int horizon;                       /* far ghosts: the evaluation ignores hunters beyond this; -1: never skip */
    int score_free;                    /* the table keys a state without its score and keeps values less it */
    double slack;                      /* Star1's widening of a window, pacman.agents.search._SLACK */
    /* the chance model: kernel[i] is ghost i's (GHOST_*); aim[i] an arcade ghost's personality (its number in
       arcade_aim_names, ghosts.c) */
    unsigned char *kernel, *aim;
    /* probability[((i * 2 + scared) * 5 + legal count) * MASKS + best mask][j], for the directional and arcade
       kernels */
    double *probability;
    /* the arcade's numbers (pacman.agents.ghosts): each direction's rank in ARCADE_TIE_ORDER, AMBUSH_CELLS,
       FLANK_CELLS, SHY_DISTANCE squared and SHY_CORNER, on the doubled grid */
    int tie_rank[4];
    int ambush2, flank2, shy_corner_x2, shy_corner_y2;
    long long shy_distance2_squared;
    int reads_heading;                 /* some ghost's target reads Pacman's heading: every state must keep it */
    /* better */
    Py_buffer distances;               /* the layout's int32 distance matrix, cells x cells */
    int32_t *rival;                    /* cells: scratch of the room term (a search holds the searcher) */
    Py_buffer order;                   /* uint16 cells x cells: each row's cells by distance (distance_order) */
    int has_order;
    /* better's bounds (better_bounds_within): Pacman's region, the maze's diameter, the unreachable distance */
    uint64_t *region;
    long long diameter, unreachable;
    int has_distances;
    /* the dot games (pacman.agents.dot_games) of the `dots` evaluation, or dot_values NULL: a reference to the
       tuple of bytes they are read from, each open cell's column, each dot's index, and the values */
    PyObject *dot_tables;
    const int32_t *dot_open, *dot_index;
    const double *dot_values;
    const double *dot_two; /* the games against both of two ghosts together, or NULL (DotGames.core_form) */
    int dot_cells, dot_count, dot_pairs, dot_games; /* dot_pairs: 0 dots, 1 pairs, 2 every set; dot_games: how many */
    int dot_rule[DOT_GHOSTS]; /* each ghost's set of tables in dot_values: its moves' (DotGames.core_form) */
    double dot_weight, dot_chance_weight, dot_behind; /* pacman.agents.evaluation.dots_prices */
    double food_weight, capsule_price, lost_penalty, step_price, scared_pull, caught_penalty, near_penalty,
        room_price;
    long long room_cells;
    /* the transposition table: open addressing over slots, entries in insertion order */
    Py_ssize_t table_size;             /* entries at most; 0: no table */
    size_t slots;                      /* a power of two >= 2 * table_size */
    Slot *slot;
    /* ENTRY_WIDTH words each: the state's size words, agent and depth in one, then its lower and upper bound
       (doubles: entry_lower, entry_upper), equal for an exact value; one entry's words are read together */
    uint64_t *entry_state;
    uint64_t *entry_hash;
    size_t entries, entry_capacity;
    size_t epoch;                      /* counts clears and halvings: an entry index found before is still good */
    int busy;                          /* a search is running (in some thread) */
} Searcher;

/* ---------------------------------------------------------------- rules */

static inline int
collides(const Board *b, int pac, int ghost_position)
{
    int dx = b->x2_at[pac] - b->x2_at[ghost_position], dy = b->y2_at[pac] - b->y2_at[ghost_position];
    return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) <= b->collision;
}

/* The cell a position counts as: a half-way position counts as the cell it rounds up to (x.5 rounds up). */
static inline int
cell_of(const Board *b, int position)
{
    return b->cell_at[position];
}

/* ---------------------------------------------------------------- the transposition table's probe (table.c) */

static inline uint64_t
mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* A word's multiplier depends on its place, so that states that differ by swapped words still differ;
   the products are independent (they pipeline), and mix64 spreads the sum over every bit. A collision
   costs only a comparison: the table compares whole states. */
static const uint64_t PLACE[8] = {
    0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL, 0xd6e8feb86659fd93ULL,
    0xff51afd7ed558ccdULL, 0xc4ceb9fe1a85ec53ULL, 0x94d049bb133111ebULL, 0xbf58476d1ce4e5b9ULL,
};

/* The hash of a state's `size` words and `extra`; with `score_free`, the score's word (1) counts as 0. */
static inline uint64_t
words_hash(const uint64_t *s, int size, uint64_t extra, int score_free)
{
    uint64_t a = extra * 0x2545f4914f6cdd1dULL, b = 0;
    int k = 0;
    for (; k + 1 < size; k += 2) {
        a += (s[k] ^ (uint64_t)k) * PLACE[k & 7];
        b += ((k == 0 && score_free ? 0 : s[k + 1]) ^ (uint64_t)k) * PLACE[(k + 1) & 7];
    }
    if (k < size)
        a += (s[k] ^ (uint64_t)k) * PLACE[k & 7];
    return mix64(a ^ (b << 32 | b >> 32));
}

static inline uint64_t
state_hash(const uint64_t *s, int size, uint64_t extra)
{
    return words_hash(s, size, extra, 0);
}

static inline uint64_t
entry_tag(int agent, int depth)
{
    return (uint64_t)(uint32_t)agent | (uint64_t)(uint32_t)depth << 32;
}

/* Ask the processor to fetch the slot of hash `h` while other work goes on. */
static inline void
table_prefetch(const Searcher *se, uint64_t h)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(se->slot + ((size_t)h & (se->slots - 1)));
#else
    (void)se;
    (void)h;
#endif
}

#define ENTRY_WIDTH(size) ((size_t)(size) + 3)

static inline double
entry_lower(const Searcher *se, size_t e)
{
    double v;
    memcpy(&v, se->entry_state + e * ENTRY_WIDTH(se->size) + se->size + 1, sizeof v);
    return v;
}

static inline double
entry_upper(const Searcher *se, size_t e)
{
    double v;
    memcpy(&v, se->entry_state + e * ENTRY_WIDTH(se->size) + se->size + 2, sizeof v);
    return v;
}

/* Set entry e's bounds (lower == upper: its exact value). */
static inline void
entry_set(Searcher *se, size_t e, double lower, double upper)
{
    uint64_t *at = se->entry_state + e * ENTRY_WIDTH(se->size) + se->size + 1;
    memcpy(at, &lower, sizeof lower);
    memcpy(at + 1, &upper, sizeof upper);
}

/* The table's hash of `s` for `tag` (agent and depth): without the score with `score_free`. */
static inline uint64_t
table_hash(const Searcher *se, const uint64_t *s, uint64_t tag)
{
    return words_hash(s, se->size, tag, se->score_free);
}

/* Whether stored state `a` is `b` for the table: every word, but the score with `score_free`. */
static inline int
table_same(const Searcher *se, const uint64_t *a, const uint64_t *b)
{
    if (!se->score_free)
        return memcmp(a, b, sizeof(uint64_t) * se->size) == 0;
    return a[0] == b[0] && memcmp(a + 2, b + 2, sizeof(uint64_t) * (se->size - 2)) == 0;
}

/* With `score_free` the table keeps a value of `s` less its score (pacman.agents.search.Searcher._offset): every
   value below `s` is its score plus what the rest of it decides. table_kept: the number kept for value `v` of
   `s`; table_given: the value of `s` for number `v` kept. Without, the value itself, to the bit. */
static inline double
table_kept(const Searcher *se, const uint64_t *s, double v)
{
    return se->score_free ? v - (double)ST_SCORE(s) : v;
}

static inline double
table_given(const Searcher *se, const uint64_t *s, double v)
{
    return se->score_free ? v + (double)ST_SCORE(s) : v;
}

/* The entry of (state, agent, depth): its index, or -1 if not stored. */
static inline Py_ssize_t
table_find(const Searcher *se, const uint64_t *s, uint64_t tag, uint64_t h)
{
    size_t mask = se->slots - 1, i = (size_t)h & mask;
    int size = se->size;
    const Slot *slot = se->slot;
    uint32_t check = (uint32_t)(h >> 32);
    while (slot[i].entry) {
        if (slot[i].check == check) {
            size_t e = slot[i].entry - 1;
            const uint64_t *stored = se->entry_state + e * ENTRY_WIDTH(size);
            if (stored[size] == tag && table_same(se, stored, s))
                return (Py_ssize_t)e;
        }
        i = (i + 1) & mask;
    }
    return -1;
}

/* Look (state, agent, depth) up: 1 and *value if its exact value is stored (a bound is not a value). */
static inline int
table_get(const Searcher *se, const uint64_t *s, uint64_t tag, uint64_t h, double *value)
{
    Py_ssize_t e = table_find(se, s, tag, h);
    if (e < 0)
        return 0;
    double lower = entry_lower(se, (size_t)e);
    if (lower != entry_upper(se, (size_t)e))
        return 0;
    *value = lower;
    return 1;
}

/* One search: the counters and the scratch space of pacman.agents.search.Searcher. */
typedef struct {
    Searcher *se;
    uint64_t *scratch;        /* 5 child states per level */
    uint64_t *hashes;         /* their 5 table hashes per level */
    double *chances;          /* 5 probabilities per level */
    int levels;
    unsigned long long nodes;
    int cut;                  /* a node was cut off by the depth limit */
    int stop;                 /* STOP_TIME or STOP_ERROR: unwind */
    int has_deadline;
    double deadline;
    unsigned long long node_limit; /* stop (as out of time) once more nodes than this are counted */
    int star1;
    double low, high;
    double *lows;             /* Star2: 5 probed lower bounds per level */
    double *after;            /* Star2: 5 weighted sums of the lower bounds after each outcome, per level */
    int local_bounds;         /* Star2: each chance node's own bounds (better's, computed here) */
    /* far ghosts: the ghost-only sums of one far_value, by (ghosts, agent, depth); open addressing */
    uint64_t *memo_key;       /* ghosts + 1 words each: the ghost words, then agent and depth */
    double *memo_value;
    uint32_t *memo_slot;      /* entry index + 1; 0: empty */
    size_t memo_entries, memo_capacity, memo_slots;
} Search;

#define INF HUGE_VAL

/* ---------------------------------------------------------------- the random streams' step (random.c) */

/* The most 32-bit words of a seed (numpy takes any int; 2**1024 is plenty). */
#define SEED_WORDS 32

/* PCG64 (XSL-RR 128/64), numpy's default bit generator: a 128-bit state as two 64-bit halves. */
typedef struct {
    uint64_t state_high, state_low, inc_high, inc_low;
} Pcg64;

static const uint64_t PCG_MULT_HIGH = 0x2360ed051fc65da4ULL, PCG_MULT_LOW = 0x4385df649fccf645ULL;

/* The full 128-bit product of two 64-bit words (where the compiler has no 128-bit integers). */
#if !defined(__SIZEOF_INT128__)
static inline void
multiply64(uint64_t a, uint64_t b, uint64_t *high, uint64_t *low)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *low = (middle << 32) | (p00 & 0xffffffffu);
    *high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}
#endif

/* state = state * multiplier + inc, modulo 2**128. */
static inline void
pcg_step(Pcg64 *g)
{
    uint64_t high, low;
#if defined(__SIZEOF_INT128__)
    unsigned __int128 product = (unsigned __int128)g->state_low * PCG_MULT_LOW;
    high = (uint64_t)(product >> 64);
    low = (uint64_t)product;
#else
    multiply64(g->state_low, PCG_MULT_LOW, &high, &low);
#endif
    high += g->state_high * PCG_MULT_LOW + g->state_low * PCG_MULT_HIGH;
    uint64_t sum_low = low + g->inc_low;
    g->state_high = high + g->inc_high + (sum_low < low);
    g->state_low = sum_low;
}

static inline uint64_t
pcg_next64(Pcg64 *g)
{
    pcg_step(g);
    uint64_t value = g->state_high ^ g->state_low;
    unsigned rotation = (unsigned)(g->state_high >> 58);
    return (value >> rotation) | (value << ((64 - rotation) & 63));
}

/* numpy's Generator.random(): 53 random bits in [0, 1). */
static inline double
pcg_double(Pcg64 *g)
{
    return (double)(pcg_next64(g) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---------------------------------------------------------------- shared between the files */

/* state.c */
CORE_INTERNAL extern PyTypeObject BoardType;
CORE_INTERNAL int successors(const Searcher *se, const uint64_t *s, int agent, uint64_t *out, unsigned char *actions);

/* ghosts.c */
CORE_INTERNAL void chance_probabilities(const Searcher *se, const uint64_t *s, int agent, int count, double *p);
/* the arcade's personalities by number (pacman.agents.ghosts.PERSONALITIES): their names, how many, and whether
   one's target reads Pacman's heading; all defined in ghosts.c beside the targets, so that a new one is added there */
CORE_INTERNAL extern const char *const arcade_aim_names[];
CORE_INTERNAL extern const int arcade_aims;
CORE_INTERNAL int arcade_reads_heading(int aim);

/* evaluation.c */
CORE_INTERNAL int nearest(const Searcher *se, int here, const uint64_t *mask, int count);
CORE_INTERNAL double evaluate_better(const Searcher *se, const uint64_t *s);
CORE_INTERNAL void better_bounds(const Searcher *se, const uint64_t *s, long long plies, double *low, double *high);

static inline double
evaluate(const Searcher *se, const uint64_t *s)
{
    if (se->evaluation == EVAL_BETTER)
        return evaluate_better(se, s);
    return (double)ST_SCORE(s);
}

/* table.c */
CORE_INTERNAL void table_free(Searcher *se);
CORE_INTERNAL int table_ready(Searcher *se);
CORE_INTERNAL void table_clear(Searcher *se);
CORE_INTERNAL int table_put(Searcher *se, const uint64_t *s, uint64_t tag, uint64_t h, double value);
CORE_INTERNAL int table_keep(Searcher *se, const uint64_t *s, uint64_t tag, uint64_t h, double lower, double upper,
                             Py_ssize_t found, size_t epoch);

/* search.c */
CORE_INTERNAL void child_hashes(const Searcher *se, const uint64_t *kids, int count, int agent, int depth,
                                uint64_t *hashes);
CORE_INTERNAL double node_value(Search *c, const uint64_t *s, int agent, int depth, double alpha, double beta,
                                int level, uint64_t h);
CORE_INTERNAL double ordered_root(Search *c, const uint64_t *root, int depth, int count, uint64_t *kids,
                                  int all_values, int first, double *values, int *best_index);
/* pacman.agents.search._ranks_before: whether root child i takes a tie from child j (`first` first, if >= 0) */
static inline int
ranks_before(int i, int j, int first)
{
    return i == first || (j != first && i < j);
}

/* far.c */
CORE_INTERNAL int far_value(Search *c, const uint64_t *s, int agent, int depth, int level, double *out);

/* searcher.c */
CORE_INTERNAL extern PyTypeObject SearcherType;
CORE_INTERNAL int read_state(const Searcher *se, PyObject *tuple, uint64_t *s);
CORE_INTERNAL PyObject *write_state(const Searcher *se, const uint64_t *s);

/* random.c */
CORE_INTERNAL void pcg_seeded(const uint32_t *words, int count, long child, Pcg64 *g);
CORE_INTERNAL int seed_words_of(uint64_t seed, uint32_t *words);
CORE_INTERNAL PyObject *core_seeded_stream(PyObject *module, PyObject *args);

/* games.c */
CORE_INTERNAL extern PyTypeObject GamesType;

#endif /* PACMAN_CORE_H */
