/*
 * pacman.agents._core: the compiled search core of pacman-ai.
 *
 * The rules of the classic game, successor generation, the built-in evaluations
 * (`score`, `better`) and ghost models (uniform, directional), and the generic
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
 *   [0] Pacman's position | status << 32    [1] the score (signed)
 *   [2 .. 2+n)  ghost i: key | scared timer << 32
 *   then the food words, then the capsule words.
 *
 * Memory: a Board holds per-layout tables; a Searcher holds its transposition
 * table (at most `table_size` entries, cleared when full, exactly as the Python
 * table) and nothing else between searches; each search allocates its scratch
 * and frees it before returning.
 */

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
#define STOP_NONE 0
#define STOP_TIME 1
#define STOP_ERROR 2
/* How many distinct best-action sets a ghost with 1..4 legal actions can have: masks 1..15. */
#define MASKS 16

/* Doubled-grid unit vectors of North, South, East, West (x, y). */
static const int DX[4] = {0, 0, 1, -1};
static const int DY[4] = {1, -1, 0, 0};

/* ---------------------------------------------------------------- the clock */

static double
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
    /* the rules' numbers, from pacman.rules */
    long long scared_time, food_points, win_points, ghost_points, lose_points, move_cost;
    int collision;                 /* collision distance on the doubled grid (Manhattan) */
} Board;

static int
board_is_wall(const Board *b, int x, int y)
{
    return x < 0 || y < 0 || x >= b->width || y >= b->height || b->wall[x * b->height + y];
}

static void
board_dealloc(Board *b)
{
    PyMem_Free(b->starts);
    PyMem_Free(b->wall);
    PyMem_Free(b->pac_count);
    PyMem_Free(b->pac_action);
    PyMem_Free(b->ghost_count);
    PyMem_Free(b->ghost_action);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

/* Fill the move tables from the walls, as pacman/state.py builds its own. */
static void
board_build_moves(Board *b)
{
    int S = b->stride;
    for (int x2 = 0; x2 < 2 * b->width; x2++) {
        for (int y2 = 0; y2 < 2 * b->height; y2++) {
            int p = x2 * S + y2;
            int xh = x2 & 1, yh = y2 & 1;
            if (!xh && !yh) {
                int x = x2 / 2, y = y2 / 2;
                if (board_is_wall(b, x, y))
                    continue;
                int open[4], count = 0;
                for (int a = 0; a < 4; a++) {
                    if (!board_is_wall(b, x + DX[a], y + DY[a])) {
                        b->pac_action[p * 5 + b->pac_count[p]++] = (unsigned char)a;
                        open[count++] = a;
                    }
                }
                b->pac_action[p * 5 + b->pac_count[p]++] = 4; /* Stop */
                for (int d = 0; d < 5; d++) {
                    int k = p * 5 + d;
                    int back = d == NO_DIRECTION ? -1 : (d ^ 1);
                    int has_back = 0;
                    for (int i = 0; i < count; i++)
                        has_back |= open[i] == back;
                    for (int i = 0; i < count; i++) {
                        if (open[i] == back && has_back && count > 1)
                            continue;
                        b->ghost_action[k * 4 + b->ghost_count[k]++] = (unsigned char)open[i];
                    }
                }
            }
            else if (xh && !yh) {
                int a = (x2 - 1) / 2, c = (x2 + 1) / 2, y = y2 / 2;
                if (c < b->width && !board_is_wall(b, a, y) && !board_is_wall(b, c, y)) {
                    for (int d = 0; d < 4; d++) {
                        int k = p * 5 + d;
                        b->ghost_action[k * 4] = (unsigned char)d;
                        b->ghost_count[k] = 1;
                    }
                }
            }
            else if (yh && !xh) {
                int a = (y2 - 1) / 2, c = (y2 + 1) / 2, x = x2 / 2;
                if (c < b->height && !board_is_wall(b, x, a) && !board_is_wall(b, x, c)) {
                    for (int d = 0; d < 4; d++) {
                        int k = p * 5 + d;
                        b->ghost_action[k * 4] = (unsigned char)d;
                        b->ghost_count[k] = 1;
                    }
                }
            }
        }
    }
}

static int
board_init(Board *b, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"width", "height", "walls", "starts", "rules", NULL};
    int width, height;
    Py_buffer walls;
    PyObject *starts, *rules;
    if (b->wall != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Board: already initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiy*OO", keywords, &width, &height, &walls, &starts, &rules))
        return -1;
    int ok = -1;
    if (width < 1 || height < 1 || width * height > 1 << 20) {
        PyErr_Format(PyExc_ValueError, "Board: bad size %d x %d", width, height);
        goto done;
    }
    if (walls.len != (Py_ssize_t)width * height) {
        PyErr_Format(PyExc_ValueError, "Board: walls has %zd bytes, expected %d", walls.len, width * height);
        goto done;
    }
    b->width = width;
    b->height = height;
    b->stride = 2 * height;
    b->cells = width * height;
    b->words = (b->cells + 63) / 64;
    b->positions = 4 * width * height;
    if (!PyArg_ParseTuple(rules, "LLLLLLi", &b->scared_time, &b->food_points, &b->win_points, &b->ghost_points,
                          &b->lose_points, &b->move_cost, &b->collision))
        goto done;
    PyObject *seq = PySequence_Fast(starts, "Board: starts must be a sequence of positions");
    if (seq == NULL)
        goto done;
    b->agents = (int)PySequence_Fast_GET_SIZE(seq);
    PyMem_Free(b->starts);
    b->starts = PyMem_Calloc(b->agents ? b->agents : 1, sizeof(int));
    if (b->starts == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        goto done;
    }
    for (int i = 0; i < b->agents; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            goto done;
        }
        if (v < 0 || v >= b->positions) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "Board: start position %ld is off the board", v);
            goto done;
        }
        b->starts[i] = (int)v;
    }
    Py_DECREF(seq);
    PyMem_Free(b->wall);
    PyMem_Free(b->pac_count);
    PyMem_Free(b->pac_action);
    PyMem_Free(b->ghost_count);
    PyMem_Free(b->ghost_action);
    b->wall = PyMem_Malloc(b->cells);
    b->pac_count = PyMem_Calloc(b->positions, 1);
    b->pac_action = PyMem_Calloc((size_t)b->positions * 5, 1);
    b->ghost_count = PyMem_Calloc((size_t)b->positions * 5, 1);
    b->ghost_action = PyMem_Calloc((size_t)b->positions * 20, 1);
    if (!b->wall || !b->pac_count || !b->pac_action || !b->ghost_count || !b->ghost_action) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(b->wall, walls.buf, b->cells);
    board_build_moves(b);
    ok = 0;
done:
    PyBuffer_Release(&walls);
    return ok;
}

static PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pacman.agents._core.Board",
    .tp_doc = PyDoc_STR("Board(width, height, walls, starts, rules): the move tables of one layout."),
    .tp_basicsize = sizeof(Board),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)board_init,
    .tp_dealloc = (destructor)board_dealloc,
};

/* ---------------------------------------------------------------- states */

#define ST_PAC(s) ((int)((s)[0] & 0xffffffffu))
#define ST_STATUS(s) ((int)((s)[0] >> 32))
#define ST_SCORE(s) ((long long)(s)[1])
#define ST_GHOST(s, i) ((int)((s)[2 + (i)] & 0xffffffffu))
#define ST_TIMER(s, i) ((long long)((s)[2 + (i)] >> 32))
#define ST_FOOD(s, n) ((s) + 2 + (n))
#define ST_CAPS(s, n, w) ((s) + 2 + (n) + (w))

static inline void
set_pac_status(uint64_t *s, int pac, int status)
{
    s[0] = (uint64_t)(uint32_t)pac | (uint64_t)(uint32_t)status << 32;
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
    double slack;                      /* Star1's widening of a window, pacman.agents.search._SLACK */
    /* the chance model: directional[i] says ghost i uses the table below, else uniform */
    unsigned char *directional;
    /* probability[((i * 2 + scared) * 5 + legal count) * MASKS + best mask][j] */
    double *probability;
    /* better */
    Py_buffer distances;               /* the layout's int32 distance matrix, cells x cells */
    int32_t *rival;                    /* cells: scratch of the room term (a search holds the searcher) */
    Py_buffer order;                   /* uint16 cells x cells: each row's cells by distance (distance_order) */
    int has_order;
    /* better's bounds (better_bounds_within): Pacman's region, the maze's diameter, the unreachable distance */
    uint64_t *region;
    long long diameter, unreachable;
    int has_distances;
    double food_weight, capsule_price, lost_penalty, step_price, scared_pull, caught_penalty, near_penalty,
        room_price;
    long long room_cells;
    /* the transposition table: open addressing over slots, entries in insertion order */
    Py_ssize_t table_size;             /* entries at most; 0: no table */
    size_t slots;                      /* a power of two >= 2 * table_size */
    Slot *slot;
    uint64_t *entry_state;             /* size words each, then agent and depth in one more word */
    uint64_t *entry_hash;
    double *entry_value;
    size_t entries, entry_capacity;
    int busy;                          /* a search is running (in some thread) */
} Searcher;

/* ---------------------------------------------------------------- rules */

static inline int
collides(const Board *b, int pac, int ghost_position)
{
    int S = b->stride;
    int dx = pac / S - ghost_position / S, dy = pac % S - ghost_position % S;
    return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) <= b->collision;
}

static inline int
cell_of(const Board *b, int position)
{
    /* a half-way position counts as the cell it rounds up to (x.5 rounds up) */
    int S = b->stride;
    return ((position / S + 1) / 2) * b->height + (position % S + 1) / 2;
}

/* After Pacman's move: resolve each collision in ghost order (pacman/state.py _pacman_collisions). */
static void
pacman_collisions(const Searcher *se, uint64_t *s)
{
    const Board *b = se->board;
    int pac = ST_PAC(s), status = ST_STATUS(s);
    long long score = ST_SCORE(s);
    for (int i = 0; i < se->ghosts; i++) {
        int key = ST_GHOST(s, i);
        if (!collides(b, pac, key / 5))
            continue;
        if (ST_TIMER(s, i)) {
            score += b->ghost_points;
            set_ghost(s, i, b->starts[i + 1] * 5 + NO_DIRECTION, 0);
        }
        else if (status != WON) {
            score -= b->lose_points;
            status = LOST;
        }
    }
    set_score(s, score);
    set_pac_status(s, pac, status);
}

/* Every legal successor of `agent` in a live state `s`, in legal-action order, into `out`
   (se->size words each); their action indices (0-4) into `actions` if not NULL. Returns the count. */
static int
successors(const Searcher *se, const uint64_t *s, int agent, uint64_t *out, unsigned char *actions)
{
    const Board *b = se->board;
    int size = se->size, n = se->ghosts, w = se->words, S = b->stride;
    int pac = ST_PAC(s);
    long long score = ST_SCORE(s);
    if (agent == 0) {
        int count = b->pac_count[pac];
        const unsigned char *legal = b->pac_action + pac * 5;
        for (int j = 0; j < count; j++) {
            int a = legal[j];
            int q = a == 4 ? pac : pac + (DX[a] * 2) * S + DY[a] * 2;
            uint64_t *o = out + (size_t)j * size;
            memcpy(o, s, sizeof(uint64_t) * size);
            int c = cell_of(b, q);
            uint64_t bit = (uint64_t)1 << (c & 63);
            uint64_t *food = ST_FOOD(o, n), *caps = ST_CAPS(o, n, w);
            int status = PLAYING;
            if (food[c >> 6] & bit) {
                food[c >> 6] ^= bit;
                int left = 0;
                for (int k = 0; k < w; k++)
                    left |= food[k] != 0;
                if (left)
                    set_score(o, score + (b->food_points - b->move_cost));
                else {
                    set_score(o, score + (b->food_points + b->win_points - b->move_cost));
                    status = WON;
                }
            }
            else if (caps[c >> 6] & bit) {
                caps[c >> 6] ^= bit;
                for (int i = 0; i < n; i++)
                    set_ghost(o, i, ST_GHOST(o, i), b->scared_time);
                set_score(o, score - b->move_cost);
            }
            else
                set_score(o, score - b->move_cost);
            set_pac_status(o, q, status);
            for (int i = 0; i < n; i++) {
                if (collides(b, q, ST_GHOST(o, i) / 5)) {
                    pacman_collisions(se, o);
                    break;
                }
            }
            if (actions)
                actions[j] = (unsigned char)a;
        }
        return count;
    }
    int i = agent - 1;
    int key = ST_GHOST(s, i);
    long long timer = ST_TIMER(s, i);
    int here = key / 5;
    int count = b->ghost_count[key];
    const unsigned char *legal = b->ghost_action + key * 4;
    int step = timer ? 1 : 2;
    for (int j = 0; j < count; j++) {
        int a = legal[j];
        int g = (here + (DX[a] * step) * S + DY[a] * step) * 5 + a;
        uint64_t *o = out + (size_t)j * size;
        memcpy(o, s, sizeof(uint64_t) * size);
        if (!timer) {
            set_ghost(o, i, g, 0);
            if (collides(b, pac, g / 5)) { /* caught by a ghost that is not scared */
                set_score(o, score - b->lose_points);
                set_pac_status(o, pac, LOST);
            }
        }
        else {
            /* half a cell; the timer drops after each own move, and at 0 the ghost snaps
               to the nearest cell (x.5 rounds up) */
            long long left = timer - 1, new_timer = left;
            long long new_score = score;
            int status = PLAYING;
            if (!left) {
                int p = g / 5, x2 = p / S, y2 = p % S;
                g = ((x2 + (x2 & 1)) * S + (y2 + (y2 & 1))) * 5 + g % 5;
            }
            if (collides(b, pac, g / 5)) {
                if (left) { /* Pacman eats the ghost: it goes home, no longer scared */
                    new_score += b->ghost_points;
                    g = b->starts[agent] * 5 + NO_DIRECTION;
                    new_timer = 0;
                }
                else {
                    new_score -= b->lose_points;
                    status = LOST;
                }
            }
            set_ghost(o, i, g, new_timer);
            set_score(o, new_score);
            set_pac_status(o, pac, status);
        }
        if (actions)
            actions[j] = (unsigned char)a;
    }
    return count;
}

/* The chance probabilities of ghost `agent` in live state `s` with `count` legal actions, into `p`. */
static void
chance_probabilities(const Searcher *se, const uint64_t *s, int agent, int count, double *p)
{
    int i = agent - 1;
    if (!se->directional[i]) {
        double uniform = 1.0 / count;
        for (int j = 0; j < count; j++)
            p[j] = uniform;
        return;
    }
    const Board *b = se->board;
    int S = b->stride;
    int key = ST_GHOST(s, i), here = key / 5;
    int scared = ST_TIMER(s, i) > 0;
    int step = scared ? 1 : 2;
    int pac = ST_PAC(s);
    int px = pac / S, py = pac % S, x = here / S, y = here % S;
    const unsigned char *legal = b->ghost_action + key * 4;
    int distance[4], target = 0;
    for (int j = 0; j < count; j++) {
        int a = legal[j];
        int dx = x + DX[a] * step - px, dy = y + DY[a] * step - py;
        distance[j] = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
        if (j == 0 || (scared ? distance[j] > target : distance[j] < target))
            target = distance[j];
    }
    int mask = 0;
    for (int j = 0; j < count; j++)
        if (distance[j] == target)
            mask |= 1 << j;
    const double *row = se->probability + ((size_t)((i * 2 + scared) * 5 + count) * MASKS + mask) * 4;
    for (int j = 0; j < count; j++)
        p[j] = row[j];
}

/* ---------------------------------------------------------------- evaluations */

/* The maze distance from cell `here` to the nearest cell of `mask` (`count` cells), 0 if none
   (DistanceTable.nearest). With many cells set, walk the cells in order of distance from `here` (the
   layout's `order` table) to the first one set; with few, take the least distance over them. */
static int
nearest(const Searcher *se, int here, const uint64_t *mask, int count)
{
    int cells = se->board->cells;
    const int32_t *row = (const int32_t *)se->distances.buf + (size_t)here * cells;
    if (!count)
        return 0;
    if (se->has_order && count > 8) {
        const uint16_t *order = (const uint16_t *)se->order.buf + (size_t)here * cells;
        for (int k = 0; k < cells; k++) {
            int c = order[k];
            if (mask[c >> 6] >> (c & 63) & 1)
                return row[c];
        }
    }
    int found = -1;
    for (int k = 0; k < se->words; k++) {
        uint64_t word = mask[k];
        while (word) {
            int c = k * 64 + lowest_bit(word);
            word &= word - 1;
            if (found < 0 || row[c] < found)
                found = row[c];
        }
    }
    return found < 0 ? 0 : found;
}

/* Hunters the room term walks the order table with (more are compared cell by cell over the whole maze). */
#define ROOM_HUNTERS 16

/* agents/evaluation.py better_evaluation, operation for operation. */
static double
evaluate_better(const Searcher *se, const uint64_t *s)
{
    const Board *b = se->board;
    int n = se->ghosts, w = se->words;
    const uint64_t *food = ST_FOOD(s, n), *caps = ST_CAPS(s, n, w);
    int food_count = 0, capsule_count = 0;
    for (int k = 0; k < w; k++) {
        food_count += popcount64(food[k]);
        capsule_count += popcount64(caps[k]);
    }
    double value = ((double)ST_SCORE(s) - se->food_weight * (double)food_count)
        - se->capsule_price * (double)capsule_count;
    int status = ST_STATUS(s);
    if (status != PLAYING)
        return status == LOST ? value - se->lost_penalty : value;
    int cells = b->cells;
    int here = cell_of(b, ST_PAC(s));
    const int32_t *matrix = (const int32_t *)se->distances.buf;
    const int32_t *row = matrix + (size_t)here * cells;
    value -= se->step_price * (double)nearest(se, here, food, food_count);
    int first_hunter = -1;
    long long closest = 1000000;
    for (int i = 0; i < n; i++) {
        int cell = cell_of(b, ST_GHOST(s, i) / 5);
        long long d = row[cell];
        long long timer = ST_TIMER(s, i);
        if (timer) {
            if (timer > d)
                value += se->scared_pull / (1.0 + (double)d);
            continue;
        }
        if (first_hunter < 0)
            first_hunter = i;
        if (d < closest)
            closest = d;
        if (d <= 1)
            value -= se->caught_penalty;
        else if (d <= 5)
            value -= se->near_penalty / (double)(d - 1);
    }
    if (first_hunter >= 0 && closest <= 8) {
        /* room: the cells strictly nearer to Pacman than to every hunter (DistanceTable.room). It costs
           something only below room_cells, so with the order table, walk the cells nearest Pacman first
           and stop once that many are counted (usually within a few dozen cells); the value is the same. */
        long long room = 0, need = se->room_cells;
        const int32_t *hunter[ROOM_HUNTERS];
        int hunters = 0;
        for (int i = first_hunter; i < n; i++) {
            if (ST_TIMER(s, i))
                continue;
            if (hunters < ROOM_HUNTERS)
                hunter[hunters] = matrix + (size_t)cell_of(b, ST_GHOST(s, i) / 5) * cells;
            hunters++;
        }
        if (se->has_order && hunters <= ROOM_HUNTERS) {
            const uint16_t *order = (const uint16_t *)se->order.buf + (size_t)here * cells;
            for (int k = 0; k < cells && room < need; k++) {
                int c = order[k], j = 0;
                int32_t mine = row[c];
                while (j < hunters && hunter[j][c] > mine)
                    j++;
                room += j == hunters;
            }
        } else {
            int32_t *rival = se->rival;
            memcpy(rival, matrix + (size_t)cell_of(b, ST_GHOST(s, first_hunter) / 5) * cells,
                   sizeof(int32_t) * cells);
            for (int i = first_hunter + 1; i < n; i++) {
                if (ST_TIMER(s, i))
                    continue;
                const int32_t *other = matrix + (size_t)cell_of(b, ST_GHOST(s, i) / 5) * cells;
                for (int c = 0; c < cells; c++)
                    rival[c] = other[c] < rival[c] ? other[c] : rival[c];
            }
            for (int c = 0; c < cells; c++)
                room += row[c] < rival[c];
        }
        if (room < need)
            value -= se->room_price * (double)(need - room);
    }
    return value;
}

static inline double
evaluate(const Searcher *se, const uint64_t *s)
{
    if (se->evaluation == EVAL_BETTER)
        return evaluate_better(se, s);
    return (double)ST_SCORE(s);
}

/* agents/evaluation.py better_bounds_within(state, plies), operation for operation: (low, high) holding
   `better` of every state `plies` moves of each agent can reach from `s`. */
static void
better_bounds(const Searcher *se, const uint64_t *s, long long plies, double *low, double *high)
{
    const Board *b = se->board;
    int n = se->ghosts, w = se->words;
    const uint64_t *food = ST_FOOD(s, n), *caps = ST_CAPS(s, n, w);
    int food_left = 0, capsules_left = 0, outside = 0;
    for (int k = 0; k < w; k++) {
        food_left += popcount64(food[k]);
        capsules_left += popcount64(caps[k]);
        outside |= (food[k] & ~se->region[k]) != 0;
    }
    double b0 = ((double)ST_SCORE(s) - se->food_weight * (double)food_left) - se->capsule_price * (double)capsules_left;
    int here = cell_of(b, ST_PAC(s));
    long long food_steps = nearest(se, here, food, food_left);
    long long capsule_steps = nearest(se, here, caps, capsules_left);
    /* at most min(left, plies - steps + 1) eaten, none if the nearest is beyond reach (_most_eaten) */
    long long dots = 0, eaten_capsules = 0, eats = 0, scared = 0;
    if (food_left && food_steps <= plies)
        dots = food_left < plies - food_steps + 1 ? food_left : plies - food_steps + 1;
    if (capsules_left && capsule_steps <= plies)
        eaten_capsules = capsules_left < plies - capsule_steps + 1 ? capsules_left : plies - capsule_steps + 1;
    for (int i = 0; i < n; i++) {
        long long times = (ST_TIMER(s, i) > 0) + eaten_capsules;
        eats += plies < times ? plies : times;
        scared += ST_TIMER(s, i) > 0;
    }
    if (eaten_capsules)
        scared = n;
    double top = b0 + (double)dots * ((double)(b->food_points - b->move_cost) + se->food_weight);
    top = top + (double)eaten_capsules * (se->capsule_price - (double)b->move_cost);
    top = top + (double)(food_left && dots >= food_left ? b->win_points : 0);
    top = top + (double)(b->ghost_points * eats);
    top = top + se->scared_pull * (double)scared;
    long long farthest = outside ? se->unreachable : se->diameter;
    if (n) { /* _ghost_reach: no ghost can catch him within `plies`? */
        const int32_t *row = (const int32_t *)se->distances.buf + (size_t)here * b->cells;
        double hunting = 0.0;
        long long closest = 1000000;
        int safe = 1;
        for (int i = 0; i < n && safe; i++) {
            long long d = row[cell_of(b, ST_GHOST(s, i) / 5)];
            if (ST_TIMER(s, i) > 0 || eaten_capsules > 0) { /* it can be eaten, and come back at its start */
                long long home = row[cell_of(b, b->starts[i + 1])];
                d = home < d ? home : d;
            }
            long long r = d - 2 * plies - 2;
            if (r < 1)
                safe = 0;
            else if (r <= 1)
                hunting += se->caught_penalty;
            else if (r <= 5)
                hunting += se->near_penalty / (double)(r - 1);
            closest = r < closest ? r : closest;
        }
        if (safe) {
            double room = closest <= 8 ? se->room_price * (double)se->room_cells : 0.0;
            long long walk = farthest;
            if (!outside && food_steps + plies < walk)
                walk = food_steps + plies;
            *low = (((b0 - (double)(plies * b->move_cost)) - se->step_price * (double)walk) - hunting) - room;
            *high = top;
            return;
        }
    }
    double live = -se->step_price * (double)farthest
        - (n ? se->caught_penalty * (double)n + se->room_price * (double)se->room_cells : 0.0);
    double lost = n ? -se->lost_penalty : 0.0;
    double bottom = ((b0 - (double)(plies * b->move_cost)) - (double)((long long)n * b->lose_points))
        + (lost < live ? lost : live);
    *low = bottom;
    *high = top;
}

/* ---------------------------------------------------------------- the transposition table */

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

static inline uint64_t
state_hash(const uint64_t *s, int size, uint64_t extra)
{
    uint64_t a = extra * 0x2545f4914f6cdd1dULL, b = 0;
    int k = 0;
    for (; k + 1 < size; k += 2) {
        a += (s[k] ^ (uint64_t)k) * PLACE[k & 7];
        b += (s[k + 1] ^ (uint64_t)k) * PLACE[(k + 1) & 7];
    }
    if (k < size)
        a += (s[k] ^ (uint64_t)k) * PLACE[k & 7];
    return mix64(a ^ (b << 32 | b >> 32));
}

static void
table_free(Searcher *se)
{
    PyMem_RawFree(se->slot);
    PyMem_RawFree(se->entry_state);
    PyMem_RawFree(se->entry_hash);
    PyMem_RawFree(se->entry_value);
    se->slot = NULL;
    se->entry_state = NULL;
    se->entry_hash = NULL;
    se->entry_value = NULL;
    se->entries = se->entry_capacity = 0;
    se->slots = 0;
}

/* Slots for the entries there are, and for as many again: the table starts small (a search of a few
   hundred nodes should not pay for a table of 100,000 entries) and doubles as it fills. */
static int
table_grow(Searcher *se, size_t slots)
{
    Slot *fresh = PyMem_RawCalloc(slots, sizeof(Slot));
    if (fresh == NULL)
        return -1;
    PyMem_RawFree(se->slot);
    se->slot = fresh;
    se->slots = slots;
    size_t mask = slots - 1;
    for (size_t e = 0; e < se->entries; e++) {
        size_t i = (size_t)se->entry_hash[e] & mask;
        while (fresh[i].entry)
            i = (i + 1) & mask;
        fresh[i].check = (uint32_t)(se->entry_hash[e] >> 32);
        fresh[i].entry = (uint32_t)(e + 1);
    }
    return 0;
}

/* Allocate the slots on first use; 0 on success, -1 out of memory. */
static int
table_ready(Searcher *se)
{
    if (se->slot != NULL)
        return 0;
    return table_grow(se, 256);
}

/* Empty the table, as the Python table is cleared when full (a few bytes per entry stored since the last
   clear: the slots are zeroed). */
static void
table_clear(Searcher *se)
{
    se->entries = 0;
    memset(se->slot, 0, se->slots * sizeof(Slot));
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

/* Look (state, agent, depth) up: 1 and *value if stored. */
static int
table_get(const Searcher *se, const uint64_t *s, uint64_t tag, uint64_t h, double *value)
{
    size_t mask = se->slots - 1, i = (size_t)h & mask;
    int size = se->size;
    const Slot *slot = se->slot;
    uint32_t check = (uint32_t)(h >> 32);
    while (slot[i].entry) {
        if (slot[i].check == check) {
            size_t e = slot[i].entry - 1;
            const uint64_t *stored = se->entry_state + e * (size_t)(size + 1);
            if (stored[size] == tag && memcmp(stored, s, sizeof(uint64_t) * size) == 0) {
                *value = se->entry_value[e];
                return 1;
            }
        }
        i = (i + 1) & mask;
    }
    return 0;
}

/* Forget the older half of the entries (Searcher._make_room with Star2 or ordering): they are kept in insertion
   order, so the newer half moves to the front and the slots are filled again. */
static void
table_halve(Searcher *se)
{
    size_t keep = se->entries / 2, drop = se->entries - keep, width = (size_t)se->size + 1;
    memmove(se->entry_state, se->entry_state + drop * width, keep * width * sizeof(uint64_t));
    memmove(se->entry_hash, se->entry_hash + drop, keep * sizeof(uint64_t));
    memmove(se->entry_value, se->entry_value + drop, keep * sizeof(double));
    se->entries = keep;
    memset(se->slot, 0, se->slots * sizeof(Slot));
    size_t mask = se->slots - 1;
    for (size_t e = 0; e < keep; e++) {
        size_t i = (size_t)se->entry_hash[e] & mask;
        while (se->slot[i].entry)
            i = (i + 1) & mask;
        se->slot[i].check = (uint32_t)(se->entry_hash[e] >> 32);
        se->slot[i].entry = (uint32_t)(e + 1);
    }
}

/* Store a value for a key that is not in the table; as the Python table, make room first when full (clear it;
   with Star2 or ordering, forget its older half).
   Returns -1 out of memory. */
static int
table_put(Searcher *se, const uint64_t *s, uint64_t tag, uint64_t h, double value)
{
    int size = se->size;
    if (se->entries >= (size_t)se->table_size) {
        if (se->star2 || se->ordering)
            table_halve(se);
        else
            table_clear(se);
    }
    if (se->entries == se->entry_capacity) {
        size_t capacity = se->entry_capacity ? 2 * se->entry_capacity : 64;
        if (capacity > (size_t)se->table_size)
            capacity = (size_t)se->table_size;
        uint64_t *states = PyMem_RawRealloc(se->entry_state, capacity * (size_t)(size + 1) * sizeof(uint64_t));
        if (states == NULL)
            return -1;
        se->entry_state = states;
        uint64_t *hashes = PyMem_RawRealloc(se->entry_hash, capacity * sizeof(uint64_t));
        if (hashes == NULL)
            return -1;
        se->entry_hash = hashes;
        double *values = PyMem_RawRealloc(se->entry_value, capacity * sizeof(double));
        if (values == NULL)
            return -1;
        se->entry_value = values;
        se->entry_capacity = capacity;
    }
    if (2 * (se->entries + 1) > se->slots && table_grow(se, 2 * se->slots) < 0)
        return -1;
    size_t e = se->entries++;
    uint64_t *stored = se->entry_state + e * (size_t)(size + 1);
    memcpy(stored, s, sizeof(uint64_t) * size);
    stored[size] = tag;
    se->entry_hash[e] = h;
    se->entry_value[e] = value;
    size_t mask = se->slots - 1, i = (size_t)h & mask;
    while (se->slot[i].entry)
        i = (i + 1) & mask;
    se->slot[i].check = (uint32_t)(h >> 32);
    se->slot[i].entry = (uint32_t)(e + 1);
    return 0;
}

/* ---------------------------------------------------------------- the search */

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

/* The table's hash of each child in `kids` (for the agent and depth they are searched at) into `hashes`, and
   a prefetch of each one's slot: by the time the search reaches a child, its slot is in the cache. */
static void
child_hashes(const Searcher *se, const uint64_t *kids, int count, int agent, int depth, uint64_t *hashes)
{
    if (se->table_size <= 0)
        return;
    uint64_t tag = entry_tag(agent, depth > 0 ? depth : 0);
    for (int j = 0; j < count; j++) {
        hashes[j] = state_hash(kids + (size_t)j * se->size, se->size, tag);
        table_prefetch(se, hashes[j]);
    }
}

/* What a pruned chance node returns when a child's search failed: a bound beyond the node's window, on the side
   the child failed (pacman.agents.search._settled). */
static double
settled(int failed_low, double total, double rest_high, double rest_low, double alpha, double beta)
{
    if (failed_low) {
        double upper = total + rest_high;
        return upper < alpha ? upper : alpha;
    }
    double lower = total + rest_low;
    return lower > beta ? lower : beta;
}

/* What a pruned chance node returns when the window left for its next child (probability p) is empty
   (pacman.agents.search._decided). */
static double
decided(int above, double total, double p, double low, double high, double rest_high, double rest_low, double alpha,
        double beta)
{
    if (above)
        return settled(1, total + p * high, rest_high, rest_low, alpha, beta);
    return settled(0, total + p * low, rest_high, rest_low, alpha, beta);
}

/* The value of `s` with `agent` to move and `depth` plies left (pacman.agents.search.Searcher._value); `h` is its
   table hash, from child_hashes. */
static double
node_value(Search *c, const uint64_t *s, int agent, int depth, double alpha, double beta, int level, uint64_t h)
{
    Searcher *se = c->se;
    c->nodes++;
    if (c->nodes > c->node_limit || (c->has_deadline && !(c->nodes & 127) && monotonic_seconds() > c->deadline)) {
        c->stop = STOP_TIME;
        return 0.0;
    }
    if (!(c->nodes & 0xfffff)) { /* every million nodes: let Ctrl-C through */
        PyGILState_STATE gil = PyGILState_Ensure();
        int failed = PyErr_CheckSignals();
        PyGILState_Release(gil);
        if (failed) {
            c->stop = STOP_ERROR;
            return 0.0;
        }
    }
    if (ST_STATUS(s) != PLAYING)
        return evaluate(se, s);
    int use_table = se->table_size > 0;
    uint64_t tag = 0;
    if (use_table) {
        /* depth-limit leaves are cached too: evaluations can cost more than a look-up */
        tag = entry_tag(agent, depth > 0 ? depth : 0);
        double hit;
        if (table_get(se, s, tag, h, &hit)) {
            if (depth <= 0)
                c->cut = 1;
            return hit;
        }
    }
    if (depth <= 0) {
        c->cut = 1;
        double v = evaluate(se, s);
        if (use_table && table_put(se, s, tag, h, v) < 0) {
            c->stop = STOP_ERROR;
            return 0.0;
        }
        return v;
    }
    if (level + 1 >= c->levels) { /* never: the scratch has a level per ply and agent */
        c->stop = STOP_ERROR;
        return 0.0;
    }
    int next_depth = depth - (agent == se->agents - 1 ? 1 : 0);
    int next_agent = agent + 1 < se->agents ? agent + 1 : 0;
    int size = se->size;
    uint64_t *kids = c->scratch + (size_t)level * 5 * size;
    uint64_t *hashes = c->hashes + (size_t)level * 5;
    int count = successors(se, s, agent, kids, NULL);
    child_hashes(se, kids, count, next_agent, next_depth, hashes);
    int prune = se->prune;
    double value;
    if (agent == 0 || se->minimise) {
        int maximise = agent == 0;
        double best = maximise ? -INF : INF;
        for (int j = 0; j < count; j++) {
            const uint64_t *kid = kids + (size_t)j * size;
            double v;
            if (!prune)
                v = node_value(c, kid, next_agent, next_depth, -INF, INF, level + 1, hashes[j]);
            else if (maximise)
                v = node_value(c, kid, next_agent, next_depth, alpha > best ? alpha : best, beta, level + 1,
                               hashes[j]);
            else
                v = node_value(c, kid, next_agent, next_depth, alpha, beta < best ? beta : best, level + 1,
                               hashes[j]);
            if (c->stop)
                return 0.0;
            if (maximise ? v > best : v < best) {
                best = v;
                if (prune && (maximise ? best >= beta : best <= alpha))
                    return best; /* a bound: not stored */
            }
        }
        value = best;
    }
    else {
        double *p = c->chances + (size_t)level * 5;
        chance_probabilities(se, s, agent, count, p);
        double total = 0.0;
        if (c->star1 && (alpha > -INF || beta < INF)) {
            double low = c->low, high = c->high;
            /* the window, widened a hair once per node (pacman.agents.search._SLACK) */
            double alpha_cut = alpha - se->slack * (1.0 + fabs(alpha));
            double beta_cut = beta + se->slack * (1.0 + fabs(beta));
            if (high < alpha_cut)
                return high; /* the window lies above every value here: fails low */
            if (low > beta_cut)
                return low; /* below every value here: fails high */
            double rest = 1.0;
            for (int j = 0; j < count; j++) {
                const uint64_t *kid = kids + (size_t)j * size;
                double pj = p[j], v;
                rest -= pj;
                if (rest < 0.0)
                    rest = 0.0;
                if (pj > 0.0) {
                    /* the child's window from the widened one (search.py: _settled) */
                    double child_alpha = (alpha_cut - total - rest * high) / pj;
                    double child_beta = (beta_cut - total - rest * low) / pj;
                    child_alpha = child_alpha > low ? child_alpha : low;
                    child_beta = child_beta < high ? child_beta : high;
                    if (!(child_alpha < child_beta)) /* no value of the child keeps the node in its window */
                        return decided(child_alpha >= high, total, pj, low, high, rest * high, rest * low, alpha, beta);
                    v = node_value(c, kid, next_agent, next_depth, child_alpha, child_beta, level + 1, hashes[j]);
                    if (c->stop)
                        return 0.0;
                    total += pj * v;
                    if (!(child_alpha < v && v < child_beta))
                        return settled(v <= child_alpha, total, rest * high, rest * low, alpha, beta);
                }
                else {
                    v = node_value(c, kid, next_agent, next_depth, -INF, INF, level + 1, hashes[j]);
                    if (c->stop)
                        return 0.0;
                    total += pj * v;
                }
                double upper = total + rest * high;
                if (upper < alpha_cut)
                    return upper; /* fails low: an upper bound */
                double lower = total + rest * low;
                if (lower > beta_cut)
                    return lower; /* fails high: a lower bound */
            }
        }
        else {
            for (int j = 0; j < count; j++) {
                double v = node_value(c, kids + (size_t)j * size, next_agent, next_depth, -INF, INF, level + 1,
                                      hashes[j]);
                if (c->stop)
                    return 0.0;
                total += p[j] * v;
            }
        }
        value = total;
    }
    if (use_table && (!prune || (alpha < value && value < beta))) {
        if (table_put(se, s, tag, h, value) < 0) {
            c->stop = STOP_ERROR;
            return 0.0;
        }
    }
    return value;
}

/* ---------------------------------------------------------------- Star2 and move ordering */

/* The tag under which the table keeps the best move of a max node (any depth: the latest search's). */
#define MOVE_DEPTH (-1)
/* Null-window tests of a max node's later moves only with this many plies left or more (below, Star1's window:
   a test and its re-search cost more than they save near the leaves); pacman.agents.search._NULL_DEPTH. */
#define STAR2_NULL_DEPTH 3

/* The order to visit a max node's `count` children in, into `order`: the table's best move first, then the rest
   in action order (pacman.agents.search.Searcher._order). */
static void
move_order(const Searcher *se, const uint64_t *s, int agent, int count, int *order)
{
    int move = 0;
    if (se->ordering) {
        uint64_t tag = entry_tag(agent, MOVE_DEPTH);
        double stored;
        if (table_get(se, s, tag, state_hash(s, se->size, tag), &stored) && stored > 0 && stored < count)
            move = (int)stored;
    }
    order[0] = move;
    for (int i = 0, k = 1; i < count; i++)
        if (i != move)
            order[k++] = i;
}

/* Keep `move` as the best move of max node `s` (Searcher._remember): an entry of the table, which it counts
   against. Returns -1 out of memory. */
static int
remember_move(Searcher *se, const uint64_t *s, int agent, int move)
{
    if (!se->ordering)
        return 0;
    uint64_t tag = entry_tag(agent, MOVE_DEPTH), h = state_hash(s, se->size, tag);
    size_t mask = se->slots - 1, i = (size_t)h & mask;
    uint32_t check = (uint32_t)(h >> 32);
    int size = se->size;
    while (se->slot[i].entry) { /* there already: overwrite, as a dict does */
        if (se->slot[i].check == check) {
            size_t e = se->slot[i].entry - 1;
            const uint64_t *stored = se->entry_state + e * (size_t)(size + 1);
            if (stored[size] == tag && memcmp(stored, s, sizeof(uint64_t) * size) == 0) {
                se->entry_value[e] = (double)move;
                return 0;
            }
        }
        i = (i + 1) & mask;
    }
    return table_put(se, s, tag, h, (double)move);
}

static double ordered_value(Search *c, const uint64_t *s, int agent, int depth, double alpha, double beta,
                            int level, uint64_t h);

/* The deadline and Ctrl-C checks of a node just counted (node_value's); 1: stop. */
static inline int
out_of_time(Search *c)
{
    if (c->nodes > c->node_limit || (c->has_deadline && !(c->nodes & 127) && monotonic_seconds() > c->deadline)) {
        c->stop = STOP_TIME;
        return 1;
    }
    if (!(c->nodes & 0xfffff)) {
        PyGILState_STATE gil = PyGILState_Ensure();
        int failed = PyErr_CheckSignals();
        PyGILState_Release(gil);
        if (failed) {
            c->stop = STOP_ERROR;
            return 1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- far ghosts */

/* pacman.agents.expectimax._sums_exactly: a uniform chance node over 2, 3 or 4 moves, each worth `value`, is
   worth `value` as the search adds it up. */
static int
sums_exactly(double value)
{
    for (int moves = 2; moves <= 4; moves++) {
        double p = 1.0 / moves, total = 0.0;
        for (int j = 0; j < moves; j++)
            total += p * value;
        if (total != value)
            return 0;
    }
    return 1;
}

/* PacmanGame._pacman_value: the best evaluation Pacman reaches in `moves` moves with the ghosts standing still. */
static double
pacman_value(Search *c, const uint64_t *s, int moves, int level)
{
    Searcher *se = c->se;
    c->nodes++;
    if (moves == 0)
        return evaluate(se, s);
    if (level + 1 >= c->levels) {
        c->stop = STOP_ERROR;
        return 0.0;
    }
    uint64_t *kids = c->scratch + (size_t)level * 5 * se->size;
    int count = successors(se, s, 0, kids, NULL);
    double best = -INF;
    for (int j = 0; j < count; j++) {
        double v = pacman_value(c, kids + (size_t)j * se->size, moves - 1, level + 1);
        if (c->stop)
            return 0.0;
        if (v > best)
            best = v;
    }
    return best;
}

/* The memo slot of (the ghost words of `s`, tag): where it is, or the empty slot where it goes. */
static size_t
memo_find(const Search *c, const uint64_t *s, uint64_t tag, uint64_t h, int *found)
{
    int n = c->se->ghosts;
    size_t mask = c->memo_slots - 1, i = (size_t)h & mask;
    while (c->memo_slot[i]) {
        const uint64_t *key = c->memo_key + (size_t)(c->memo_slot[i] - 1) * (n + 1);
        if (key[n] == tag && memcmp(key, s + 2, sizeof(uint64_t) * n) == 0) {
            *found = 1;
            return i;
        }
        i = (i + 1) & mask;
    }
    *found = 0;
    return i;
}

/* Make room for one more memo entry: more entries and twice the slots when half full. -1: out of memory. */
static int
memo_room(Search *c)
{
    int n = c->se->ghosts;
    if (c->memo_entries == c->memo_capacity) {
        size_t capacity = c->memo_capacity ? 2 * c->memo_capacity : 1024;
        uint64_t *keys = PyMem_RawRealloc(c->memo_key, capacity * (size_t)(n + 1) * sizeof(uint64_t));
        if (keys == NULL)
            return -1;
        c->memo_key = keys;
        double *values = PyMem_RawRealloc(c->memo_value, capacity * sizeof(double));
        if (values == NULL)
            return -1;
        c->memo_value = values;
        c->memo_capacity = capacity;
    }
    if (2 * (c->memo_entries + 1) > c->memo_slots) {
        size_t slots = c->memo_slots ? 2 * c->memo_slots : 2048;
        uint32_t *fresh = PyMem_RawCalloc(slots, sizeof(uint32_t));
        if (fresh == NULL)
            return -1;
        PyMem_RawFree(c->memo_slot);
        c->memo_slot = fresh;
        c->memo_slots = slots;
        size_t mask = slots - 1;
        for (size_t e = 0; e < c->memo_entries; e++) {
            const uint64_t *key = c->memo_key + e * (size_t)(n + 1);
            size_t i = (size_t)state_hash(key, n, key[n]) & mask;
            while (fresh[i])
                i = (i + 1) & mask;
            fresh[i] = (uint32_t)(e + 1);
        }
    }
    return 0;
}

/* PacmanGame._ghost_average: the search's value of the chance node (`s`, `agent`) at `depth` when every leaf below
   is worth `value`, summed over the ghosts' moves alone in the search's order; each (ghosts, agent, depth) once. */
static double
ghost_average(Search *c, const uint64_t *s, int agent, int depth, double value, int level)
{
    Searcher *se = c->se;
    int n = se->ghosts;
    c->nodes++;
    uint64_t tag = entry_tag(agent, depth), h = state_hash(s + 2, n, tag);
    int found;
    size_t slot = memo_find(c, s, tag, h, &found);
    if (found)
        return c->memo_value[c->memo_slot[slot] - 1];
    if (level + 1 >= c->levels) {
        c->stop = STOP_ERROR;
        return 0.0;
    }
    uint64_t *kids = c->scratch + (size_t)level * 5 * se->size;
    int count = successors(se, s, agent, kids, NULL);
    double p = 1.0 / count, total = 0.0;
    int last = agent == n;
    for (int j = 0; j < count; j++) {
        const uint64_t *kid = kids + (size_t)j * se->size;
        double v;
        if (last)
            v = depth == 1 ? value : ghost_average(c, kid, 1, depth - 1, value, level + 1);
        else
            v = ghost_average(c, kid, agent + 1, depth, value, level + 1);
        if (c->stop)
            return 0.0;
        total += p * v;
    }
    if (memo_room(c) < 0) {
        c->stop = STOP_ERROR;
        return 0.0;
    }
    slot = memo_find(c, s, tag, h, &found); /* the slots may have grown */
    size_t e = c->memo_entries++;
    memcpy(c->memo_key + e * (size_t)(n + 1), s + 2, sizeof(uint64_t) * n);
    c->memo_key[e * (size_t)(n + 1) + n] = tag;
    c->memo_value[e] = total;
    c->memo_slot[slot] = (uint32_t)(e + 1);
    return total;
}

/* PacmanGame.far_value: 1 and the exact value of the live node (`s`, `agent`) at `depth` > 0 in *out when no ghost
   can matter below it (no capsule or win within Pacman's reach, every ghost farther than the horizon at every node
   below, or scared and out of his reach in time); 0 when a ghost may matter; -1 when the search must stop. */
static int
far_value(Search *c, const uint64_t *s, int agent, int depth, int level, double *out)
{
    Searcher *se = c->se;
    const Board *b = se->board;
    int n = se->ghosts, w = se->words;
    if (se->horizon < 0 || !n)
        return 0;
    long long pacman_moves = agent == 0 ? depth : depth - 1;
    const uint64_t *food = ST_FOOD(s, n), *caps = ST_CAPS(s, n, w);
    int food_count = 0, capsule_count = 0;
    for (int k = 0; k < w; k++) {
        food_count += popcount64(food[k]);
        capsule_count += popcount64(caps[k]);
    }
    if (food_count <= pacman_moves)
        return 0;
    int here = cell_of(b, ST_PAC(s));
    if (capsule_count && nearest(se, here, caps, capsule_count) <= pacman_moves)
        return 0;
    const int32_t *row = (const int32_t *)se->distances.buf + (size_t)here * b->cells;
    for (int i = 0; i < n; i++) {
        long long ghost_moves = agent == 0 || i + 1 >= agent ? depth : depth - 1;
        long long d = row[cell_of(b, ST_GHOST(s, i) / 5)], timer = ST_TIMER(s, i);
        if (!timer) {
            if (d - pacman_moves - ghost_moves <= se->horizon)
                return 0;
        }
        else if (timer > d - pacman_moves - 1
                 || d - pacman_moves - ghost_moves - 1 <= (timer <= ghost_moves ? se->horizon : 0))
            return 0; /* scared: no pull at the leaves, no meeting, and beyond the horizon once hunting */
    }
    double best = pacman_value(c, s, (int)pacman_moves, level);
    if (c->stop)
        return -1;
    if (sums_exactly(best)) {
        *out = best;
        return 1;
    }
    for (size_t e = 0; e < c->memo_entries; e++) { /* forget the last far node's sums: another value */
        const uint64_t *key = c->memo_key + e * (size_t)(n + 1);
        size_t i = (size_t)state_hash(key, n, key[n]) & (c->memo_slots - 1);
        while (c->memo_slot[i] != (uint32_t)(e + 1))
            i = (i + 1) & (c->memo_slots - 1);
        c->memo_slot[i] = 0;
    }
    c->memo_entries = 0;
    if (c->memo_slots == 0 && memo_room(c) < 0) {
        c->stop = STOP_ERROR;
        return -1;
    }
    *out = ghost_average(c, s, agent ? agent : 1, depth, best, level);
    return c->stop ? -1 : 1;
}

/* Star2's probe of the live max node `s` (Searcher._probe): the value of one child (the table's best move, else
   the first), a lower bound on the node's value when above `alpha`; its exact value when in the table. */
static double
probe_value(Search *c, const uint64_t *s, int agent, int depth, double alpha, double beta, int level, uint64_t h)
{
    Searcher *se = c->se;
    c->nodes++;
    if (out_of_time(c))
        return 0.0;
    if (se->table_size > 0) {
        double hit;
        if (table_get(se, s, entry_tag(agent, depth), h, &hit))
            return hit;
    }
    if (level + 1 >= c->levels) {
        c->stop = STOP_ERROR;
        return 0.0;
    }
    int next_depth = depth - (agent == se->agents - 1 ? 1 : 0);
    int next_agent = agent + 1 < se->agents ? agent + 1 : 0;
    int size = se->size, order[5];
    uint64_t *kids = c->scratch + (size_t)level * 5 * size;
    uint64_t *hashes = c->hashes + (size_t)level * 5;
    int count = successors(se, s, agent, kids, NULL);
    move_order(se, s, agent, count, order);
    int j = order[0];
    uint64_t hj = 0;
    if (se->table_size > 0)
        hj = state_hash(kids + (size_t)j * size, size, entry_tag(next_agent, next_depth > 0 ? next_depth : 0));
    (void)hashes;
    return ordered_value(c, kids + (size_t)j * size, next_agent, next_depth, alpha, beta, level + 1, hj);
}

/* node_value with Star2 and move ordering (pacman.agents.search.Searcher._ordered_value), for chance layers. */
static double
ordered_value(Search *c, const uint64_t *s, int agent, int depth, double alpha, double beta, int level, uint64_t h)
{
    Searcher *se = c->se;
    c->nodes++;
    if (out_of_time(c))
        return 0.0;
    if (ST_STATUS(s) != PLAYING)
        return evaluate(se, s);
    int use_table = se->table_size > 0;
    uint64_t tag = 0;
    if (use_table && depth > 0) {
        tag = entry_tag(agent, depth);
        double hit;
        if (table_get(se, s, tag, h, &hit))
            return hit;
    }
    if (depth <= 0) { /* not stored: a leaf costs about a look-up, and the table keeps room for inner nodes */
        c->cut = 1;
        return evaluate(se, s);
    }
    if (level + 1 >= c->levels) {
        c->stop = STOP_ERROR;
        return 0.0;
    }
    double value;
    int far = far_value(c, s, agent, depth, level, &value);
    if (far) { /* no ghost can matter any more: the exact value, from Pacman's moves alone */
        if (far < 0)
            return 0.0;
        c->cut = 1;
        if (use_table && table_put(se, s, tag, h, value) < 0) {
            c->stop = STOP_ERROR;
            return 0.0;
        }
        return value;
    }
    int next_depth = depth - (agent == se->agents - 1 ? 1 : 0);
    int next_agent = agent + 1 < se->agents ? agent + 1 : 0;
    int size = se->size;
    uint64_t *kids = c->scratch + (size_t)level * 5 * size;
    uint64_t *hashes = c->hashes + (size_t)level * 5;
    int count = successors(se, s, agent, kids, NULL);
    if (next_depth > 0) /* leaves are not looked up */
        child_hashes(se, kids, count, next_agent, next_depth, hashes);
    int star2 = se->star2;
    if (agent == 0) {
        int order[5];
        move_order(se, s, agent, count, order);
        double best = -INF;
        int best_index = -1;
        for (int k = 0; k < count; k++) {
            int i = order[k];
            const uint64_t *kid = kids + (size_t)i * size;
            double floor = alpha > best ? alpha : best, v;
            if (best_index >= 0 && star2 && depth >= STAR2_NULL_DEPTH) {
                double ceiling = nextafter(floor, INF);
                if (ceiling < beta) { /* a null window first: is this move better? */
                    v = ordered_value(c, kid, next_agent, next_depth, floor, ceiling, level + 1, hashes[i]);
                    if (!c->stop && v >= ceiling)
                        v = ordered_value(c, kid, next_agent, next_depth, floor, beta, level + 1, hashes[i]);
                }
                else
                    v = ordered_value(c, kid, next_agent, next_depth, floor, beta, level + 1, hashes[i]);
            }
            else
                v = ordered_value(c, kid, next_agent, next_depth, floor, beta, level + 1, hashes[i]);
            if (c->stop)
                return 0.0;
            if (v > best) {
                best = v;
                best_index = i;
                if (best >= beta) {
                    if (remember_move(se, s, agent, i) < 0)
                        c->stop = STOP_ERROR;
                    return best; /* a lower bound: not stored */
                }
            }
        }
        value = best;
        if (alpha < value && value < beta && remember_move(se, s, agent, best_index) < 0) {
            c->stop = STOP_ERROR;
            return 0.0;
        }
    }
    else {
        double *p = c->chances + (size_t)level * 5;
        chance_probabilities(se, s, agent, count, p);
        double total = 0.0;
        if (c->star1 && (alpha > -INF || beta < INF)) {
            double low = c->low, high = c->high;
            if (star2 && se->region != NULL && c->local_bounds) { /* this node's own bounds */
                double l, u;
                better_bounds(se, s, depth, &l, &u);
                l = l - se->slack * (1.0 + fabs(l));
                u = u + se->slack * (1.0 + fabs(u));
                low = low >= l ? low : l;
                high = high <= u ? high : u;
            }
            double alpha_cut = alpha - se->slack * (1.0 + fabs(alpha));
            double beta_cut = beta + se->slack * (1.0 + fabs(beta));
            if (high < alpha_cut) /* as in node_value; with this node's own bounds a window can lie outside them */
                return high;
            if (low > beta_cut)
                return low;
            double *lows = NULL, *after = c->after + (size_t)level * 5;
            if (star2 && beta < high) { /* a fail high is possible: probe the max children for lower bounds */
                lows = c->lows + (size_t)level * 5;
                for (int j = 0; j < count; j++)
                    lows[j] = low;
                for (int j = 0; j < count; j++) {
                    const uint64_t *kid = kids + (size_t)j * size;
                    if (p[j] <= 0.0 || next_agent != 0 || next_depth < 1 || ST_STATUS(kid) != PLAYING)
                        continue; /* only live max nodes with a ply left: a leaf's probe would be its search */
                    double others = 0.0;
                    for (int k = 0; k < count; k++)
                        if (k != j)
                            others += p[k] * lows[k];
                    double probe_beta = (beta - others) / p[j];
                    if (probe_beta > high)
                        probe_beta = high;
                    if (!(probe_beta > low))
                        continue;
                    double v = probe_value(c, kid, next_agent, next_depth, low, probe_beta, level + 1, hashes[j]);
                    if (c->stop)
                        return 0.0;
                    if (v > low) {
                        lows[j] = v < high ? v : high;
                        double lower = 0.0;
                        for (int k = 0; k < count; k++)
                            lower += p[k] * lows[k];
                        if (lower > beta_cut)
                            return lower; /* fails high on the probes alone: a lower bound */
                    }
                }
                double acc = 0.0;
                for (int j = count - 1; j >= 0; j--) {
                    after[j] = acc;
                    acc += p[j] * lows[j];
                }
            }
            double rest = 1.0;
            for (int j = 0; j < count; j++) {
                const uint64_t *kid = kids + (size_t)j * size;
                double pj = p[j], v;
                rest -= pj;
                if (rest < 0.0)
                    rest = 0.0;
                double rest_low = lows == NULL ? rest * low : after[j];
                if (pj > 0.0) {
                    double child_alpha = (alpha_cut - total - rest * high) / pj; /* as in node_value */
                    double child_beta = (beta_cut - total - rest_low) / pj;
                    child_alpha = child_alpha > low ? child_alpha : low;
                    child_beta = child_beta < high ? child_beta : high;
                    if (!(child_alpha < child_beta))
                        return decided(child_alpha >= high, total, pj, low, high, rest * high, rest_low, alpha, beta);
                    v = ordered_value(c, kid, next_agent, next_depth, child_alpha, child_beta, level + 1, hashes[j]);
                    if (c->stop)
                        return 0.0;
                    total += pj * v;
                    if (!(child_alpha < v && v < child_beta))
                        return settled(v <= child_alpha, total, rest * high, rest_low, alpha, beta);
                }
                else {
                    v = ordered_value(c, kid, next_agent, next_depth, -INF, INF, level + 1, hashes[j]);
                    if (c->stop)
                        return 0.0;
                    total += pj * v;
                }
                double upper = total + rest * high;
                if (upper < alpha_cut)
                    return upper; /* fails low: an upper bound */
                double lower = total + rest_low;
                if (lower > beta_cut)
                    return lower; /* fails high: a lower bound */
            }
        }
        else {
            for (int j = 0; j < count; j++) {
                double v = ordered_value(c, kids + (size_t)j * size, next_agent, next_depth, -INF, INF, level + 1,
                                         hashes[j]);
                if (c->stop)
                    return 0.0;
                total += p[j] * v;
            }
        }
        value = total;
    }
    if (use_table && alpha < value && value < beta) {
        if (table_put(se, s, tag, h, value) < 0) {
            c->stop = STOP_ERROR;
            return 0.0;
        }
    }
    return value;
}

/* Searcher._ordered_root at `depth`: every root child's value into `values` (with `all_values`; else the best
   one's only) and the first best index in action order into *best_index; the root's value. */
static double
ordered_root(Search *c, const uint64_t *root, int depth, int count, uint64_t *kids, int all_values,
             double *values, int *best_index)
{
    Searcher *se = c->se;
    int size = se->size;
    int next_depth = depth - (se->agents == 1 ? 1 : 0);
    int next_agent = se->agents > 1 ? 1 : 0;
    uint64_t hashes[5];
    child_hashes(se, kids, count, next_agent, next_depth, hashes);
    int order[5];
    move_order(se, root, 0, count, order);
    double best = -INF;
    int bi = -1;
    for (int k = 0; k < count; k++) {
        int i = order[k];
        const uint64_t *kid = kids + (size_t)i * size;
        double v;
        int take;
        if (all_values || bi < 0) {
            v = ordered_value(c, kid, next_agent, next_depth, -INF, INF, 0, hashes[i]);
            if (c->stop)
                return 0.0;
            values[i] = v;
            take = v > best || (v == best && (bi < 0 || i < bi));
        }
        else {
            double floor = i < bi ? nextafter(best, -INF) : best;
            if (se->star2) {
                double ceiling = nextafter(floor, INF);
                v = ordered_value(c, kid, next_agent, next_depth, floor, ceiling, 0, hashes[i]);
                if (!c->stop && v >= ceiling)
                    v = ordered_value(c, kid, next_agent, next_depth, floor, INF, 0, hashes[i]);
            }
            else
                v = ordered_value(c, kid, next_agent, next_depth, floor, INF, 0, hashes[i]);
            if (c->stop)
                return 0.0;
            values[i] = v;
            take = v > floor;
        }
        if (take) {
            best = v;
            bi = i;
        }
    }
    if (se->table_size > 0 && remember_move(se, root, 0, bi) < 0)
        c->stop = STOP_ERROR;
    *best_index = bi;
    return best;
}

/* ---------------------------------------------------------------- Python glue */

/* Read a state tuple (pacman, food bytes, capsule bytes, ghost keys, timers, score, status) into `s`. */
static int
read_state(const Searcher *se, PyObject *tuple, uint64_t *s)
{
    const Board *b = se->board;
    int pac, status;
    long long score;
    Py_buffer food, caps;
    PyObject *ghosts, *timers;
    if (!PyArg_ParseTuple(tuple, "iy*y*OOLi", &pac, &food, &caps, &ghosts, &timers, &score, &status))
        return -1;
    int ok = -1;
    int n = se->ghosts, w = se->words;
    PyObject *g = NULL, *t = NULL;
    if (food.len != (Py_ssize_t)w * 8 || caps.len != (Py_ssize_t)w * 8) {
        PyErr_Format(PyExc_ValueError, "state: food and capsules must be %d bytes", w * 8);
        goto done;
    }
    if (pac < 0 || pac >= b->positions || status < PLAYING || status > LOST) {
        PyErr_SetString(PyExc_ValueError, "state: Pacman's position or the status is out of range");
        goto done;
    }
    g = PySequence_Fast(ghosts, "state: ghosts must be a sequence");
    t = g ? PySequence_Fast(timers, "state: timers must be a sequence") : NULL;
    if (t == NULL)
        goto done;
    if (PySequence_Fast_GET_SIZE(g) != n || PySequence_Fast_GET_SIZE(t) != n) {
        PyErr_Format(PyExc_ValueError, "state: expected %d ghosts and timers", n);
        goto done;
    }
    memset(s, 0, sizeof(uint64_t) * se->size);
    set_pac_status(s, pac, status);
    set_score(s, score);
    for (int i = 0; i < n; i++) {
        long key = PyLong_AsLong(PySequence_Fast_GET_ITEM(g, i));
        long long timer = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(t, i));
        if (PyErr_Occurred())
            goto done;
        if (key < 0 || key >= 5L * b->positions || timer < 0 || timer > 0x7fffffff) {
            PyErr_SetString(PyExc_ValueError, "state: a ghost key or timer is out of range");
            goto done;
        }
        set_ghost(s, i, (int)key, timer);
    }
    for (int k = 0; k < w; k++) {
        uint64_t fw = 0, cw = 0;
        for (int j = 7; j >= 0; j--) {
            fw = fw << 8 | ((const unsigned char *)food.buf)[k * 8 + j];
            cw = cw << 8 | ((const unsigned char *)caps.buf)[k * 8 + j];
        }
        ST_FOOD(s, n)[k] = fw;
        ST_CAPS(s, n, w)[k] = cw;
    }
    ok = 0;
done:
    Py_XDECREF(g);
    Py_XDECREF(t);
    PyBuffer_Release(&food);
    PyBuffer_Release(&caps);
    return ok;
}

static PyObject *
mask_bytes(const uint64_t *words, int w)
{
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)w * 8);
    if (out == NULL)
        return NULL;
    unsigned char *buf = (unsigned char *)PyBytes_AS_STRING(out);
    for (int k = 0; k < w; k++)
        for (int j = 0; j < 8; j++)
            buf[k * 8 + j] = (unsigned char)(words[k] >> (8 * j));
    return out;
}

static PyObject *
write_state(const Searcher *se, const uint64_t *s)
{
    int n = se->ghosts, w = se->words;
    PyObject *ghosts = PyTuple_New(n), *timers = PyTuple_New(n);
    if (!ghosts || !timers)
        goto fail;
    for (int i = 0; i < n; i++) {
        PyObject *key = PyLong_FromLong(ST_GHOST(s, i)), *timer = PyLong_FromLongLong(ST_TIMER(s, i));
        if (!key || !timer) {
            Py_XDECREF(key);
            Py_XDECREF(timer);
            goto fail;
        }
        PyTuple_SET_ITEM(ghosts, i, key);
        PyTuple_SET_ITEM(timers, i, timer);
    }
    PyObject *food = mask_bytes(ST_FOOD(s, n), w), *caps = mask_bytes(ST_CAPS(s, n, w), w);
    if (!food || !caps) {
        Py_XDECREF(food);
        Py_XDECREF(caps);
        goto fail;
    }
    return Py_BuildValue("(iNNNNLi)", ST_PAC(s), food, caps, ghosts, timers, ST_SCORE(s), ST_STATUS(s));
fail:
    Py_XDECREF(ghosts);
    Py_XDECREF(timers);
    return NULL;
}

static void
searcher_dealloc(Searcher *se)
{
    table_free(se);
    if (se->has_distances)
        PyBuffer_Release(&se->distances);
    if (se->has_order)
        PyBuffer_Release(&se->order);
    PyMem_Free(se->directional);
    PyMem_Free(se->probability);
    PyMem_RawFree(se->rival);
    PyMem_Free(se->region);
    Py_XDECREF(se->board);
    Py_TYPE(se)->tp_free((PyObject *)se);
}

static int
searcher_init(Searcher *se, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"board", "ghosts", "evaluation", "minimise", "prune", "table_size", "slack",
                               "directional", "probabilities", "distances", "weights", "order", "bounds",
                               "star2", "ordering", "horizon", NULL};
    PyObject *board, *directional, *probabilities, *distances, *weights, *order = Py_None, *bounds = Py_None;
    int ghosts, evaluation, minimise, prune, star2 = 0, ordering = 0, horizon = -1;
    Py_ssize_t table_size;
    double slack;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!iippndOOOO|OOppi", keywords, &BoardType, &board, &ghosts,
                                     &evaluation, &minimise, &prune, &table_size, &slack, &directional,
                                     &probabilities, &distances, &weights, &order, &bounds, &star2, &ordering,
                                     &horizon))
        return -1;
    if (se->board != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Searcher: already initialised");
        return -1;
    }
    Board *b = (Board *)board;
    if (ghosts < 0 || ghosts + 1 > b->agents) {
        PyErr_Format(PyExc_ValueError, "Searcher: %d ghosts, but the layout has %d", ghosts, b->agents - 1);
        return -1;
    }
    if (evaluation != EVAL_SCORE && evaluation != EVAL_BETTER) {
        PyErr_Format(PyExc_ValueError, "Searcher: unknown evaluation %d", evaluation);
        return -1;
    }
    if (table_size < 0 || table_size > 0x7fffffff) {
        PyErr_SetString(PyExc_ValueError, "Searcher: table_size out of range");
        return -1;
    }
    Py_INCREF(board);
    se->board = b;
    se->ghosts = ghosts;
    se->agents = ghosts + 1;
    se->words = b->words;
    se->size = 2 + ghosts + 2 * b->words;
    se->evaluation = evaluation;
    se->minimise = minimise;
    se->prune = prune;
    /* as pacman.agents.search.Searcher: Star2 needs pruning; ordering needs pruning and a table; both are
       for chance layers only */
    se->star2 = star2 && prune && !minimise;
    se->ordering = ordering && prune && table_size > 0 && !minimise;
    se->table_size = table_size;
    se->slack = slack;
    /* far ghosts are skipped in Star2's and ordering's search, with uniform chance layers (checked below) */
    se->horizon = (se->star2 || se->ordering) ? horizon : -1;
    se->directional = PyMem_Calloc(ghosts ? ghosts : 1, 1);
    se->probability = PyMem_Calloc((size_t)(ghosts ? ghosts : 1) * 2 * 5 * MASKS * 4, sizeof(double));
    if (!se->directional || !se->probability) {
        PyErr_NoMemory();
        return -1;
    }
    /* directional: one flag per ghost; probabilities: per ghost, a dict
       {(scared, legal count, best mask): (p0, ...)} for its directional distributions */
    PyObject *flags = PySequence_Fast(directional, "Searcher: directional must be a sequence");
    if (flags == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(flags) != ghosts) {
        Py_DECREF(flags);
        PyErr_SetString(PyExc_ValueError, "Searcher: one directional flag per ghost");
        return -1;
    }
    for (int i = 0; i < ghosts; i++) {
        int flag = PyObject_IsTrue(PySequence_Fast_GET_ITEM(flags, i));
        if (flag < 0) {
            Py_DECREF(flags);
            return -1;
        }
        se->directional[i] = (unsigned char)flag;
        if (flag)
            se->horizon = -1;
    }
    Py_DECREF(flags);
    PyObject *tables = PySequence_Fast(probabilities, "Searcher: probabilities must be a sequence");
    if (tables == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(tables) != ghosts) {
        Py_DECREF(tables);
        PyErr_SetString(PyExc_ValueError, "Searcher: one probability table per ghost");
        return -1;
    }
    for (int i = 0; i < ghosts; i++) {
        PyObject *table = PySequence_Fast_GET_ITEM(tables, i);
        if (!se->directional[i])
            continue;
        if (!PyDict_Check(table)) {
            Py_DECREF(tables);
            PyErr_SetString(PyExc_TypeError, "Searcher: a directional ghost's probabilities must be a dict");
            return -1;
        }
        PyObject *key, *row;
        Py_ssize_t pos = 0;
        while (PyDict_Next(table, &pos, &key, &row)) {
            int scared, count, mask;
            if (!PyArg_ParseTuple(key, "iii", &scared, &count, &mask)) {
                Py_DECREF(tables);
                return -1;
            }
            if (scared < 0 || scared > 1 || count < 1 || count > 4 || mask < 1 || mask >= 1 << count
                || !PyTuple_Check(row) || PyTuple_GET_SIZE(row) != count) {
                Py_DECREF(tables);
                PyErr_SetString(PyExc_ValueError, "Searcher: bad probability table entry");
                return -1;
            }
            double *out = se->probability + ((size_t)((i * 2 + scared) * 5 + count) * MASKS + mask) * 4;
            for (int j = 0; j < count; j++) {
                out[j] = PyFloat_AsDouble(PyTuple_GET_ITEM(row, j));
                if (out[j] == -1.0 && PyErr_Occurred()) {
                    Py_DECREF(tables);
                    return -1;
                }
            }
        }
    }
    Py_DECREF(tables);
    if (minimise)
        se->horizon = -1;
    if (evaluation == EVAL_BETTER || (se->horizon >= 0 && distances != Py_None)) {
        if (PyObject_GetBuffer(distances, &se->distances, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return -1;
        se->has_distances = 1;
        if (se->distances.itemsize != 4 || se->distances.format == NULL
            || (strcmp(se->distances.format, "i") != 0 && strcmp(se->distances.format, "<i") != 0
                && strcmp(se->distances.format, "=i") != 0 && strcmp(se->distances.format, "l") != 0)
            || se->distances.len != (Py_ssize_t)b->cells * b->cells * 4) {
            PyErr_SetString(PyExc_ValueError, "Searcher: distances must be a C-contiguous int32 cells x cells matrix");
            return -1;
        }
    }
    else
        se->horizon = -1; /* the far test needs the distances */
    if (evaluation == EVAL_BETTER) {
        if (order != Py_None) {
            if (PyObject_GetBuffer(order, &se->order, PyBUF_C_CONTIGUOUS) < 0)
                return -1;
            se->has_order = 1;
            if (se->order.len != (Py_ssize_t)b->cells * b->cells * 2) {
                PyErr_SetString(PyExc_ValueError, "Searcher: order must be distance_order() of the distances");
                return -1;
            }
        }
        se->rival = PyMem_RawMalloc(sizeof(int32_t) * (size_t)b->cells);
        if (se->rival == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        if (bounds != Py_None) {
            Py_buffer region;
            if (!PyArg_ParseTuple(bounds, "y*LL", &region, &se->diameter, &se->unreachable))
                return -1;
            se->region = PyMem_Calloc(b->words ? b->words : 1, sizeof(uint64_t));
            if (se->region == NULL || region.len != (Py_ssize_t)b->words * 8) {
                PyBuffer_Release(&region);
                if (se->region == NULL)
                    PyErr_NoMemory();
                else
                    PyErr_SetString(PyExc_ValueError, "Searcher: the region mask has the wrong size");
                return -1;
            }
            for (int k = 0; k < b->words; k++)
                for (int j = 7; j >= 0; j--)
                    se->region[k] = se->region[k] << 8 | ((const unsigned char *)region.buf)[k * 8 + j];
            PyBuffer_Release(&region);
        }
        if (!PyArg_ParseTuple(weights, "ddddddddL", &se->food_weight, &se->capsule_price, &se->lost_penalty,
                              &se->step_price, &se->scared_pull, &se->caught_penalty, &se->near_penalty,
                              &se->room_price, &se->room_cells))
            return -1;
    }
    return 0;
}

/* Parse a state argument into a freshly allocated row; NULL with an exception on failure. */
static uint64_t *
state_argument(const Searcher *se, PyObject *tuple)
{
    uint64_t *s = PyMem_Malloc(sizeof(uint64_t) * se->size);
    if (s == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (read_state(se, tuple, s) < 0) {
        PyMem_Free(s);
        return NULL;
    }
    return s;
}

static int
check_agent(const Searcher *se, int agent, const uint64_t *s, int live)
{
    if (agent < 0 || agent >= se->agents) {
        PyErr_Format(PyExc_ValueError, "agent %d does not exist: this game has agents 0..%d", agent, se->ghosts);
        return -1;
    }
    if (live && ST_STATUS(s) != PLAYING) {
        PyErr_SetString(PyExc_ValueError, "no successor of a terminal state");
        return -1;
    }
    return 0;
}

static PyObject *
searcher_successors(Searcher *se, PyObject *args)
{
    PyObject *tuple;
    int agent;
    if (!PyArg_ParseTuple(args, "Oi", &tuple, &agent))
        return NULL;
    uint64_t *s = state_argument(se, tuple);
    if (s == NULL)
        return NULL;
    PyObject *result = NULL;
    uint64_t *out = NULL;
    if (check_agent(se, agent, s, 0) < 0)
        goto done;
    if (ST_STATUS(s) != PLAYING) {
        result = PyList_New(0);
        goto done;
    }
    out = PyMem_Malloc(sizeof(uint64_t) * se->size * 5);
    if (out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    unsigned char actions[5];
    int count = successors(se, s, agent, out, actions);
    result = PyList_New(count);
    if (result == NULL)
        goto done;
    for (int j = 0; j < count; j++) {
        PyObject *item = Py_BuildValue("(iN)", actions[j], write_state(se, out + (size_t)j * se->size));
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, j, item);
    }
done:
    PyMem_Free(out);
    PyMem_Free(s);
    return result;
}

static PyObject *
searcher_evaluate(Searcher *se, PyObject *tuple)
{
    if (se->busy) { /* the room term's scratch belongs to the running search */
        PyErr_SetString(PyExc_RuntimeError, "this searcher is searching in another thread");
        return NULL;
    }
    uint64_t *s = state_argument(se, tuple);
    if (s == NULL)
        return NULL;
    double v = evaluate(se, s);
    PyMem_Free(s);
    return PyFloat_FromDouble(v);
}

static PyObject *
searcher_bounds(Searcher *se, PyObject *args)
{
    PyObject *tuple;
    long long plies;
    if (!PyArg_ParseTuple(args, "OL", &tuple, &plies))
        return NULL;
    if (se->region == NULL) {
        PyErr_SetString(PyExc_ValueError, "bounds: only a searcher with better's bounds has them");
        return NULL;
    }
    uint64_t *s = state_argument(se, tuple);
    if (s == NULL)
        return NULL;
    double low, high;
    better_bounds(se, s, plies, &low, &high);
    PyMem_Free(s);
    return Py_BuildValue("(dd)", low, high);
}

static PyObject *
searcher_distribution(Searcher *se, PyObject *args)
{
    PyObject *tuple;
    int agent;
    if (!PyArg_ParseTuple(args, "Oi", &tuple, &agent))
        return NULL;
    uint64_t *s = state_argument(se, tuple);
    if (s == NULL)
        return NULL;
    PyObject *result = NULL;
    if (check_agent(se, agent, s, 1) < 0)
        goto done;
    if (agent == 0) {
        PyErr_SetString(PyExc_ValueError, "Pacman (agent 0) is not a chance layer");
        goto done;
    }
    int key = ST_GHOST(s, agent - 1);
    int count = se->board->ghost_count[key];
    double p[5];
    if (count)
        chance_probabilities(se, s, agent, count, p);
    result = PyList_New(count);
    for (int j = 0; result && j < count; j++) {
        PyObject *item = Py_BuildValue("(id)", se->board->ghost_action[key * 4 + j], p[j]);
        if (item == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, j, item);
    }
done:
    PyMem_Free(s);
    return result;
}

/* search(state, depth, all_values, star1, low, high, budget) -> (value, best index, values, actions, nodes,
   complete, out of time): pacman.agents.search.Searcher.search from a Pacman (max) root, the whole tree in C.
   `budget` < 0: no deadline; else the seconds this search may take. */
static PyObject *
searcher_search(Searcher *se, PyObject *args)
{
    PyObject *tuple;
    int depth, all_values, star1;
    double low, high, budget;
    long long node_limit = -1;
    if (!PyArg_ParseTuple(args, "Oiiiddd|L", &tuple, &depth, &all_values, &star1, &low, &high, &budget, &node_limit))
        return NULL;
    if (depth < 1 || depth > 1000) {
        PyErr_Format(PyExc_ValueError, "search: depth %d out of range 1..1000", depth);
        return NULL;
    }
    uint64_t *root = state_argument(se, tuple);
    if (root == NULL)
        return NULL;
    if (check_agent(se, 0, root, 1) < 0) {
        PyMem_Free(root);
        return NULL;
    }
    if (se->busy) {
        PyMem_Free(root);
        PyErr_SetString(PyExc_RuntimeError, "this searcher is already searching in another thread");
        return NULL;
    }
    if (se->table_size > 0 && table_ready(se) < 0) {
        PyMem_Free(root);
        return PyErr_NoMemory();
    }
    Search c;
    memset(&c, 0, sizeof(c));
    c.se = se;
    c.levels = depth * se->agents + 2;
    c.scratch = PyMem_RawMalloc(sizeof(uint64_t) * (size_t)se->size * 5 * (size_t)(c.levels + 1));
    c.chances = PyMem_RawMalloc(sizeof(double) * 5 * (size_t)(c.levels + 1));
    c.hashes = PyMem_RawCalloc(5 * (size_t)(c.levels + 1), sizeof(uint64_t));
    c.lows = PyMem_RawMalloc(sizeof(double) * 5 * (size_t)(c.levels + 1));
    c.after = PyMem_RawMalloc(sizeof(double) * 5 * (size_t)(c.levels + 1));
    if (!c.scratch || !c.chances || !c.hashes || !c.lows || !c.after) {
        PyMem_RawFree(c.scratch);
        PyMem_RawFree(c.chances);
        PyMem_RawFree(c.hashes);
        PyMem_RawFree(c.lows);
        PyMem_RawFree(c.after);
        PyMem_Free(root);
        return PyErr_NoMemory();
    }
    if (star1 < 0) { /* better's bounds for this search, and pacman.agents.search.star1_window, here */
        if (se->region == NULL || !se->prune) {
            PyMem_RawFree(c.scratch);
            PyMem_RawFree(c.chances);
            PyMem_RawFree(c.hashes);
            PyMem_RawFree(c.lows);
            PyMem_RawFree(c.after);
            PyMem_Free(root);
            PyErr_SetString(PyExc_ValueError, "search: this searcher has no bounds of its own");
            return NULL;
        }
        better_bounds(se, root, depth, &low, &high);
        star1 = 1;
        c.local_bounds = 1;
        low = low - se->slack * (1.0 + fabs(low));
        high = high + se->slack * (1.0 + fabs(high));
    }
    c.star1 = star1;
    c.low = low;
    c.high = high;
    if (budget >= 0.0) {
        c.has_deadline = 1;
        c.deadline = monotonic_seconds() + budget;
    }
    c.node_limit = node_limit >= 0 ? (unsigned long long)node_limit : ULLONG_MAX;
    double values[5], best = -INF;
    unsigned char actions[5];
    int best_index = -1, count;
    int exact = all_values || !se->prune;
    se->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    c.nodes = 1;
    int next_depth = depth - (se->agents == 1 ? 1 : 0);
    int next_agent = se->agents > 1 ? 1 : 0;
    uint64_t *kids = c.scratch + (size_t)c.levels * 5 * se->size;
    uint64_t *hashes = c.hashes + (size_t)c.levels * 5;
    count = successors(se, root, 0, kids, actions);
    if (se->star2 || se->ordering) {
        /* pacman.agents.search.Searcher._ordered_root; with ordering, the shallower depths first */
        for (int shallower = 1; se->ordering && shallower < depth && !c.stop; shallower++)
            ordered_root(&c, root, shallower, count, kids, 0, values, &best_index);
        c.cut = 0;
        if (!c.stop)
            best = ordered_root(&c, root, depth, count, kids, exact, values, &best_index);
    }
    else {
    child_hashes(se, kids, count, next_agent, next_depth, hashes);
    for (int j = 0; j < count; j++) {
        double v;
        if (exact)
            v = node_value(&c, kids + (size_t)j * se->size, next_agent, next_depth, -INF, INF, 0, hashes[j]);
        else
            v = node_value(&c, kids + (size_t)j * se->size, next_agent, next_depth, best, INF, 0, hashes[j]);
        if (c.stop)
            break;
        values[j] = v;
        if (v > best) {
            best = v;
            best_index = j;
        }
    }
    }
    Py_END_ALLOW_THREADS
    se->busy = 0;
    PyMem_RawFree(c.scratch);
    PyMem_RawFree(c.chances);
    PyMem_RawFree(c.hashes);
    PyMem_RawFree(c.lows);
    PyMem_RawFree(c.after);
    PyMem_RawFree(c.memo_key);
    PyMem_RawFree(c.memo_value);
    PyMem_RawFree(c.memo_slot);
    PyMem_Free(root);
    if (c.stop == STOP_ERROR) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return NULL;
    }
    if (c.stop == STOP_TIME)
        return Py_BuildValue("(diOOKii)", 0.0, -1, Py_None, Py_None, c.nodes, !c.cut, 1);
    if (best_index < 0) /* every child is -inf: the first is best */
        best_index = 0;
    PyObject *value_list = PyList_New(count), *action_list = PyList_New(count);
    if (!value_list || !action_list) {
        Py_XDECREF(value_list);
        Py_XDECREF(action_list);
        return NULL;
    }
    for (int j = 0; j < count; j++) {
        PyObject *v = PyFloat_FromDouble(values[j]), *a = PyLong_FromLong(actions[j]);
        if (!v || !a) {
            Py_XDECREF(v);
            Py_XDECREF(a);
            Py_DECREF(value_list);
            Py_DECREF(action_list);
            return NULL;
        }
        PyList_SET_ITEM(value_list, j, v);
        PyList_SET_ITEM(action_list, j, a);
    }
    if (!exact) { /* only the best value is exact: the caller keeps that one */
        Py_DECREF(value_list);
        Py_INCREF(Py_None);
        value_list = Py_None;
    }
    return Py_BuildValue("(diNNKii)", best, best_index, value_list, action_list, c.nodes, !c.cut, 0);
}

static PyObject *
searcher_clear(Searcher *se, PyObject *Py_UNUSED(ignored))
{
    if (se->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this searcher is searching in another thread");
        return NULL;
    }
    if (se->slot != NULL)
        table_clear(se);
    Py_RETURN_NONE;
}

static PyObject *
searcher_table_entries(Searcher *se, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(se->slot != NULL ? se->entries : 0);
}

static PyMethodDef searcher_methods[] = {
    {"search", (PyCFunction)searcher_search, METH_VARARGS,
     PyDoc_STR("search(state, depth, all_values, star1, low, high, budget[, node_limit]) -> (value, best, values, "
               "actions, nodes, complete, out_of_time)")},
    {"successors", (PyCFunction)searcher_successors, METH_VARARGS,
     PyDoc_STR("successors(state, agent) -> [(action index, state), ...] in legal-action order")},
    {"distribution", (PyCFunction)searcher_distribution, METH_VARARGS,
     PyDoc_STR("distribution(state, ghost) -> [(action index, probability), ...]: the chance layer's outcomes")},
    {"evaluate", (PyCFunction)searcher_evaluate, METH_O, PyDoc_STR("evaluate(state) -> the evaluation's value")},
    {"bounds", (PyCFunction)searcher_bounds, METH_VARARGS,
     PyDoc_STR("bounds(state, plies) -> (low, high): better_bounds_within, for a searcher of better")},
    {"clear", (PyCFunction)searcher_clear, METH_NOARGS, PyDoc_STR("Forget the transposition table.")},
    {NULL, NULL, 0, NULL},
};

static PyObject *
searcher_busy(Searcher *se, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(se->busy);
}

static PyGetSetDef searcher_getset[] = {
    {"table_entries", (getter)searcher_table_entries, NULL, PyDoc_STR("Entries in the transposition table."), NULL},
    {"busy", (getter)searcher_busy, NULL, PyDoc_STR("True while a search runs (in some thread)."), NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pacman.agents._core.Searcher",
    .tp_doc = PyDoc_STR("Searcher(board, ghosts, evaluation, minimise, prune, table_size, slack, directional, "
                        "probabilities, distances, weights): one agent's search on one layout."),
    .tp_basicsize = sizeof(Searcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)searcher_init,
    .tp_dealloc = (destructor)searcher_dealloc,
    .tp_methods = searcher_methods,
    .tp_getset = searcher_getset,
};

/* distance_order(distances, cells) -> bytes: for each cell, every cell as a uint16, nearest first (ties by
   cell number), for `nearest`. A counting sort per row: distances are small whole numbers. */
static PyObject *
core_distance_order(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer matrix;
    int cells;
    if (!PyArg_ParseTuple(args, "y*i", &matrix, &cells))
        return NULL;
    PyObject *out = NULL;
    int *count = NULL;
    if (cells < 1 || cells > 65535 || matrix.len != (Py_ssize_t)cells * cells * 4) {
        PyErr_SetString(PyExc_ValueError, "distance_order: expected a cells x cells int32 matrix, cells <= 65535");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cells * cells * 2);
    count = PyMem_Malloc(sizeof(int) * ((size_t)cells + 2));
    if (out == NULL || count == NULL) {
        Py_CLEAR(out);
        PyErr_NoMemory();
        goto done;
    }
    const int32_t *distances = (const int32_t *)matrix.buf;
    uint16_t *order = (uint16_t *)PyBytes_AS_STRING(out);
    for (int r = 0; r < cells; r++) {
        const int32_t *row = distances + (size_t)r * cells;
        uint16_t *mine = order + (size_t)r * cells;
        /* bucket d in 0..cells-1 for reachable cells, bucket `cells` for the rest */
        memset(count, 0, sizeof(int) * ((size_t)cells + 2));
        for (int c = 0; c < cells; c++) {
            int d = row[c] >= 0 && row[c] < cells ? row[c] : cells;
            count[d + 1]++;
        }
        for (int d = 1; d <= cells + 1; d++)
            count[d] += count[d - 1];
        for (int c = 0; c < cells; c++) {
            int d = row[c] >= 0 && row[c] < cells ? row[c] : cells;
            mine[count[d]++] = (uint16_t)c;
        }
    }
done:
    PyMem_Free(count);
    PyBuffer_Release(&matrix);
    return out;
}

/* ================================================================ games for the learning environments
 *
 * `Games`: whole games stepped in C for the environments (pacman/envs/core_games.py builds it: one game for
 * PacmanEnv, many at once for the vector environment), the rules above
 * reused as they are (`successors`, `chance_probabilities` of a Searcher built for the
 * game's ghost models). One step of a game is one round of pacman/game.py's
 * run_game: Pacman's action (an illegal one is taken as Stop), then each ghost's
 * move drawn from its own stream, stopping when the game ends. The streams are
 * numpy's: SeedSequence(seed).spawn(agents) and PCG64, written again here bit for
 * bit, so a game seeded s is the game `pacman-ai play --seed s` plays (tests check
 * it against numpy and against the Python environment). A game that ended at the
 * last step starts again at the next one (Gymnasium's NEXT_STEP autoreset), its
 * seed the next raw word of its own seeder (a PCG64 seeded as Gymnasium seeds
 * `np_random`), halved. Grid observations are written into one caller's array: whole when a game starts,
 * then only the cells that changed; states go back to Python as GameStates (`play`, `game_state`).
 */

#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_MULT_L 0xca01f9ddu
#define SS_MIX_MULT_R 0x4973f715u
#define SS_XSHIFT 16
#define SS_POOL 4
/* The most 32-bit words of a seed (numpy takes any int; 2**1024 is plenty). */
#define SEED_WORDS 32
/* The grid's channels: walls, food, capsules, Pacman, ghosts, scared ghosts (pacman/envs/observations.py). */
#define GRID_CHANNELS 6

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

static inline uint32_t
ss_hashmix(uint32_t value, uint32_t *hash_const)
{
    value ^= *hash_const;
    *hash_const *= SS_MULT_A;
    value *= *hash_const;
    value ^= value >> SS_XSHIFT;
    return value;
}

static inline uint32_t
ss_mix(uint32_t x, uint32_t y)
{
    uint32_t result = SS_MIX_MULT_L * x - SS_MIX_MULT_R * y;
    result ^= result >> SS_XSHIFT;
    return result;
}

/* numpy's PCG64(SeedSequence(entropy, spawn_key)) for an int entropy given as its 32-bit words (least
   significant first; 0 is one word 0) and a spawn key of one index, or none when `child` < 0. */
static void
pcg_seeded(const uint32_t *words, int count, long child, Pcg64 *g)
{
    uint32_t entropy[SEED_WORDS + SS_POOL + 1];
    int n = 0;
    for (int k = 0; k < count; k++)
        entropy[n++] = words[k];
    if (child >= 0) {
        while (n < SS_POOL) /* a spawned sequence pads its entropy to the pool size */
            entropy[n++] = 0;
        entropy[n++] = (uint32_t)child;
    }
    uint32_t pool[SS_POOL], hash_const = SS_INIT_A;
    for (int i = 0; i < SS_POOL; i++)
        pool[i] = ss_hashmix(i < n ? entropy[i] : 0, &hash_const);
    for (int src = 0; src < SS_POOL; src++)
        for (int dst = 0; dst < SS_POOL; dst++)
            if (src != dst)
                pool[dst] = ss_mix(pool[dst], ss_hashmix(pool[src], &hash_const));
    for (int src = SS_POOL; src < n; src++)
        for (int dst = 0; dst < SS_POOL; dst++)
            pool[dst] = ss_mix(pool[dst], ss_hashmix(entropy[src], &hash_const));
    /* generate_state(4, uint64): eight words, paired little-endian */
    uint32_t state[8], generate_const = SS_INIT_B;
    for (int k = 0; k < 8; k++) {
        uint32_t value = pool[k % SS_POOL];
        value ^= generate_const;
        generate_const *= SS_MULT_B;
        value *= generate_const;
        value ^= value >> SS_XSHIFT;
        state[k] = value;
    }
    uint64_t val[4];
    for (int k = 0; k < 4; k++)
        val[k] = (uint64_t)state[2 * k] | (uint64_t)state[2 * k + 1] << 32;
    /* pcg64_set_seed: initstate = val[0]:val[1], initseq = val[2]:val[3]; state 0, inc = initseq << 1 | 1,
       step, state += initstate, step */
    g->state_high = 0;
    g->state_low = 0;
    g->inc_high = (val[2] << 1) | (val[3] >> 63);
    g->inc_low = (val[3] << 1) | 1u;
    pcg_step(g);
    uint64_t low = g->state_low + val[1];
    g->state_high = g->state_high + val[0] + (low < val[1]);
    g->state_low = low;
    pcg_step(g);
}

/* An int's 32-bit words, least significant first, as numpy coerces an int entropy; returns the count. */
static int
seed_words_of(uint64_t seed, uint32_t *words)
{
    int n = 0;
    do {
        words[n++] = (uint32_t)(seed & 0xffffffffu);
        seed >>= 32;
    } while (seed);
    return n;
}

typedef struct {
    PyObject_HEAD
    Searcher *searcher;          /* the rules and ghost models of these games */
    int games, agents, size, max_moves;
    int width, height, grid;     /* grid: bytes of one observation, GRID_CHANNELS x height x width */
    uint64_t *start;             /* the first state of every game */
    uint64_t *state;             /* games x size */
    uint64_t *scratch;           /* 5 x size: a node's successors */
    Pcg64 *stream;               /* games x agents: each agent's stream in each game (Pacman's unused here) */
    Pcg64 *seeder;               /* games: each game's source of seeds for the games after it */
    unsigned char *seeded;       /* games: its seeder has been seeded */
    unsigned char *ended;        /* games: the game ended at the last step; the next step starts another */
    uint64_t *seed;              /* games: the seed of the game being played, when it fits 64 bits */
    long long *moves, *illegal;  /* games: Pacman moves made; illegal actions taken as Stop */
    unsigned char *template;     /* one observation with the walls only */
    int *cell_offset;            /* cells: where cell c (bit x * height + y) lies in a plane, row 0 at the top */
    int *pacman_offset;          /* positions: where a plane marks Pacman at a doubled-grid position */
    int *ghost_offset;           /* 5 x positions: where a plane marks a ghost of key k (position * 5 + direction) */
    uint64_t *before;            /* size words: the state a game's observation shows while it steps */
    unsigned char *bytes;        /* 8 x words: a food or capsule set as little-endian bytes */
    PyObject *state_type;        /* GameState (or NULL): `play` and `game_state` hand states back as its instances */
    PyObject *state_board;       /* ... sharing this board, the first field of every GameState */
    Py_buffer observations, rewards, terminated, truncated, masks;
    int has_buffers;
} Games;

static void
games_dealloc(Games *v)
{
    PyMem_Free(v->start);
    PyMem_Free(v->state);
    PyMem_Free(v->scratch);
    PyMem_Free(v->stream);
    PyMem_Free(v->seeder);
    PyMem_Free(v->seeded);
    PyMem_Free(v->ended);
    PyMem_Free(v->seed);
    PyMem_Free(v->moves);
    PyMem_Free(v->illegal);
    PyMem_Free(v->template);
    PyMem_Free(v->cell_offset);
    PyMem_Free(v->pacman_offset);
    PyMem_Free(v->ghost_offset);
    PyMem_Free(v->before);
    PyMem_Free(v->bytes);
    Py_XDECREF(v->state_type);
    Py_XDECREF(v->state_board);
    if (v->has_buffers & 1)
        PyBuffer_Release(&v->observations);
    if (v->has_buffers & 2)
        PyBuffer_Release(&v->rewards);
    if (v->has_buffers & 4)
        PyBuffer_Release(&v->terminated);
    if (v->has_buffers & 8)
        PyBuffer_Release(&v->truncated);
    if (v->has_buffers & 16)
        PyBuffer_Release(&v->masks);
    Py_XDECREF(v->searcher);
    Py_TYPE(v)->tp_free((PyObject *)v);
}

/* Take a writable C-contiguous buffer of exactly `bytes` bytes; bit `flag` of has_buffers records it. */
static int
games_buffer(Games *v, PyObject *object, Py_buffer *view, Py_ssize_t bytes, int flag, const char *name)
{
    if (PyObject_GetBuffer(object, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    v->has_buffers |= flag;
    if (view->len != bytes) {
        PyErr_Format(PyExc_ValueError, "Games: %s has %zd bytes, expected %zd", name, view->len, bytes);
        return -1;
    }
    return 0;
}

/* Where a plane marks Pacman at doubled-grid position `pac` (the table pacman_offset is made of). */
static int
pacman_mark_of(const Games *v, int pac)
{
    int S = v->searcher->board->stride;
    return (v->height - 1 - (pac % S) / 2) * v->width + (pac / S) / 2;
}

/* Where a plane marks a ghost of key `key`: its cell, or when half-way (scared) the cell it is heading to (the
   table ghost_offset is made of). */
static int
ghost_mark_of(const Games *v, int key)
{
    int S = v->searcher->board->stride;
    int p = key / 5, d = key % 5;
    int x2 = p / S, y2 = p % S;
    if (((x2 | y2) & 1) && d < 4) {
        x2 += DX[d];
        y2 += DY[d];
    }
    if (x2 < 0 || y2 < 0 || x2 / 2 >= v->width || y2 / 2 >= v->height)
        return 0; /* a key no ghost can have (outside the maze): never looked up */
    return (v->height - 1 - y2 / 2) * v->width + x2 / 2;
}

static inline int
pacman_mark(const Games *v, int pac)
{
    return v->pacman_offset[pac];
}

static inline int
ghost_mark(const Games *v, const uint64_t *s, int g)
{
    return v->ghost_offset[ST_GHOST(s, g)];
}

/* Game i's action mask: Pacman's legal actions, none once the game is over. */
static inline void
games_mask(Games *v, int i)
{
    const Board *b = v->searcher->board;
    const uint64_t *s = v->state + (size_t)i * v->size;
    int pac = ST_PAC(s);
    signed char *mask = (signed char *)v->masks.buf + (size_t)i * 5;
    memset(mask, 0, 5);
    if (ST_STATUS(s) == PLAYING) {
        for (int j = 0; j < b->pac_count[pac]; j++)
            mask[b->pac_action[pac * 5 + j]] = 1;
    }
}

/* The grid of game i's state written whole into its observation, and its action mask. */
static void
games_observe(Games *v, int i)
{
    games_mask(v, i);
    if (!(v->has_buffers & 1))
        return;
    const uint64_t *s = v->state + (size_t)i * v->size;
    int n = v->searcher->ghosts, w = v->searcher->words, plane = v->height * v->width;
    unsigned char *o = (unsigned char *)v->observations.buf + (size_t)i * v->grid;
    memcpy(o, v->template, v->grid);
    for (int layer = 0; layer < 2; layer++) {
        const uint64_t *set = layer ? ST_CAPS(s, n, w) : ST_FOOD(s, n);
        unsigned char *out = o + (size_t)(1 + layer) * plane;
        for (int k = 0; k < w; k++) {
            uint64_t bits = set[k];
            while (bits) {
                out[v->cell_offset[k * 64 + lowest_bit(bits)]] = 1;
                bits &= bits - 1;
            }
        }
    }
    for (int g = 0; g < n; g++)
        o[(size_t)(ST_TIMER(s, g) ? 5 : 4) * plane + ghost_mark(v, s, g)] = 1;
    o[(size_t)3 * plane + pacman_mark(v, ST_PAC(s))] = 1;
}

/* Game i's observation, which shows the state `before`, brought up to its state by writing only the cells
   that changed (within a game food and capsules only disappear); the same grid as games_observe, and its
   action mask. The observations must not be written by anyone else between steps (the vector environment
   hands out copies or a read-only view). */
static void
games_observe_change(Games *v, int i, const uint64_t *before)
{
    games_mask(v, i);
    if (!(v->has_buffers & 1))
        return;
    const uint64_t *s = v->state + (size_t)i * v->size;
    int n = v->searcher->ghosts, w = v->searcher->words, plane = v->height * v->width;
    unsigned char *o = (unsigned char *)v->observations.buf + (size_t)i * v->grid;
    for (int layer = 0; layer < 2; layer++) {
        const uint64_t *was = layer ? ST_CAPS(before, n, w) : ST_FOOD(before, n);
        const uint64_t *now = layer ? ST_CAPS(s, n, w) : ST_FOOD(s, n);
        unsigned char *out = o + (size_t)(1 + layer) * plane;
        for (int k = 0; k < w; k++) {
            uint64_t bits = was[k] & ~now[k];
            while (bits) {
                out[v->cell_offset[k * 64 + lowest_bit(bits)]] = 0;
                bits &= bits - 1;
            }
        }
    }
    /* clear every old mark, then set every new one: ghosts sharing a cell stay marked */
    for (int g = 0; g < n; g++)
        o[(size_t)(ST_TIMER(before, g) ? 5 : 4) * plane + ghost_mark(v, before, g)] = 0;
    o[(size_t)3 * plane + pacman_mark(v, ST_PAC(before))] = 0;
    for (int g = 0; g < n; g++)
        o[(size_t)(ST_TIMER(s, g) ? 5 : 4) * plane + ghost_mark(v, s, g)] = 1;
    o[(size_t)3 * plane + pacman_mark(v, ST_PAC(s))] = 1;
}

/* Start game i again: its seed is the int of `words` (count > 0), or else the next of its seeder's. A new
   seed (count > 0 and `reseed`) also seeds the seeder, as Gymnasium's reset(seed=...) seeds np_random. */
static void
games_start(Games *v, int i, const uint32_t *words, int count, int reseed)
{
    uint32_t drawn[2];
    if (reseed) {
        pcg_seeded(words, count, -1, &v->seeder[i]);
        v->seeded[i] = 1;
    }
    if (count == 0) {
        uint64_t seed = pcg_next64(&v->seeder[i]) >> 1;
        count = seed_words_of(seed, drawn);
        words = drawn;
        v->seed[i] = seed;
    }
    else
        v->seed[i] = count <= 2 ? (uint64_t)words[0] | (count == 2 ? (uint64_t)words[1] << 32 : 0) : 0;
    for (int a = 0; a < v->agents; a++)
        pcg_seeded(words, count, a, &v->stream[(size_t)i * v->agents + a]);
    memcpy(v->state + (size_t)i * v->size, v->start, sizeof(uint64_t) * v->size);
    v->moves[i] = 0;
    v->illegal[i] = 0;
    v->ended[i] = 0;
    games_observe(v, i);
}

static int
games_init(Games *v, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"searcher", "games", "start", "max_moves", "width", "height", "observations",
                               "rewards", "terminated", "truncated", "masks", "state_like", NULL};
    PyObject *searcher, *start, *observations, *rewards, *terminated, *truncated, *masks, *state_like = Py_None;
    int games, max_moves, width, height;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!iOiiiOOOOO|O", keywords, &SearcherType, &searcher, &games,
                                     &start, &max_moves, &width, &height, &observations, &rewards, &terminated,
                                     &truncated, &masks, &state_like))
        return -1;
    if (v->searcher != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Games: already initialised");
        return -1;
    }
    Searcher *se = (Searcher *)searcher;
    if (se->minimise) {
        PyErr_SetString(PyExc_ValueError, "Games: the ghosts must be chance layers (a searcher with minimise=False)");
        return -1;
    }
    if (games < 1 || games > 1 << 24 || max_moves < 0) {
        PyErr_Format(PyExc_ValueError, "Games: bad number of games %d or max_moves %d", games, max_moves);
        return -1;
    }
    if (width != se->board->width || height != se->board->height) {
        PyErr_SetString(PyExc_ValueError, "Games: width and height are not the board's");
        return -1;
    }
    Py_INCREF(searcher);
    v->searcher = se;
    v->games = games;
    v->agents = se->agents;
    v->size = se->size;
    v->max_moves = max_moves;
    v->width = width;
    v->height = height;
    v->grid = GRID_CHANNELS * width * height;
    v->start = PyMem_Calloc(v->size, sizeof(uint64_t));
    v->state = PyMem_Calloc((size_t)games * v->size, sizeof(uint64_t));
    v->scratch = PyMem_Calloc((size_t)5 * v->size, sizeof(uint64_t));
    v->stream = PyMem_Calloc((size_t)games * v->agents, sizeof(Pcg64));
    v->seeder = PyMem_Calloc(games, sizeof(Pcg64));
    v->seeded = PyMem_Calloc(games, 1);
    v->ended = PyMem_Calloc(games, 1);
    v->seed = PyMem_Calloc(games, sizeof(uint64_t));
    v->moves = PyMem_Calloc(games, sizeof(long long));
    v->illegal = PyMem_Calloc(games, sizeof(long long));
    v->template = PyMem_Calloc(v->grid, 1);
    v->cell_offset = PyMem_Calloc((size_t)se->words * 64, sizeof(int));
    v->before = PyMem_Calloc(v->size, sizeof(uint64_t));
    v->bytes = PyMem_Calloc((size_t)se->words * 8, 1);
    int positions = se->board->positions;
    v->pacman_offset = PyMem_Calloc(positions, sizeof(int));
    v->ghost_offset = PyMem_Calloc((size_t)positions * 5, sizeof(int));
    if (!v->start || !v->state || !v->scratch || !v->stream || !v->seeder || !v->seeded || !v->ended || !v->seed
        || !v->moves || !v->illegal || !v->template || !v->cell_offset || !v->before || !v->bytes
        || !v->pacman_offset || !v->ghost_offset) {
        PyErr_NoMemory();
        return -1;
    }
    for (int c = 0; c < width * height; c++)
        v->cell_offset[c] = (height - 1 - c % height) * width + c / height;
    for (int p = 0; p < positions; p++) {
        v->pacman_offset[p] = pacman_mark_of(v, p);
        for (int d = 0; d < 5; d++)
            v->ghost_offset[p * 5 + d] = ghost_mark_of(v, p * 5 + d);
    }
    if (state_like != Py_None) {
        /* a GameState is its board, then its position_key (pacman/state.py, _rebuild): take both from one */
        if (!PyTuple_Check(state_like) || PyTuple_GET_SIZE(state_like) != 8) {
            PyErr_SetString(PyExc_TypeError, "Games: state_like must be a GameState of these games' layout");
            return -1;
        }
        v->state_type = Py_NewRef((PyObject *)Py_TYPE(state_like));
        v->state_board = Py_NewRef(PyTuple_GET_ITEM(state_like, 0));
    }
    if (read_state(se, start, v->start) < 0)
        return -1;
    for (int x = 0; x < width; x++)
        for (int y = 0; y < height; y++)
            v->template[(height - 1 - y) * width + x] = se->board->wall[x * height + y];
    if (observations != Py_None
        && games_buffer(v, observations, &v->observations, (Py_ssize_t)games * v->grid, 1, "observations") < 0)
        return -1;
    if (games_buffer(v, rewards, &v->rewards, (Py_ssize_t)games * sizeof(double), 2, "rewards") < 0
        || games_buffer(v, terminated, &v->terminated, games, 4, "terminated") < 0
        || games_buffer(v, truncated, &v->truncated, games, 8, "truncated") < 0
        || games_buffer(v, masks, &v->masks, (Py_ssize_t)games * 5, 16, "masks") < 0)
        return -1;
    for (int i = 0; i < games; i++)
        memcpy(v->state + (size_t)i * v->size, v->start, sizeof(uint64_t) * v->size);
    return 0;
}

static int
games_index(Games *v, int i)
{
    if (i < 0 || i >= v->games) {
        PyErr_Format(PyExc_IndexError, "game %d does not exist (0..%d)", i, v->games - 1);
        return -1;
    }
    return 0;
}

/* reset(i, words=None): start game i with the seed whose 32-bit words (least significant first) are
   `words`, seeding its seeder too; None: the next seed of its seeder (seeded before). Returns the seed
   when it fits 64 bits. */
static PyObject *
games_reset(Games *v, PyObject *args)
{
    int i;
    PyObject *words = Py_None;
    if (!PyArg_ParseTuple(args, "i|O", &i, &words) || games_index(v, i) < 0)
        return NULL;
    uint32_t seed_words[SEED_WORDS];
    int count = 0;
    if (words != Py_None) {
        PyObject *seq = PySequence_Fast(words, "reset: words must be a sequence of ints");
        if (seq == NULL)
            return NULL;
        count = (int)PySequence_Fast_GET_SIZE(seq);
        if (count < 1 || count > SEED_WORDS) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "reset: a seed of 1 to %d 32-bit words", SEED_WORDS);
            return NULL;
        }
        for (int k = 0; k < count; k++) {
            unsigned long word = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, k));
            if ((word == (unsigned long)-1 && PyErr_Occurred()) || word > 0xffffffffUL) {
                Py_DECREF(seq);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "reset: a seed word is not 32 bits");
                return NULL;
            }
            seed_words[k] = (uint32_t)word;
        }
        Py_DECREF(seq);
    }
    else if (!v->seeded[i]) {
        PyErr_Format(PyExc_ValueError, "reset: game %d has no seeder yet; give its seed", i);
        return NULL;
    }
    games_start(v, i, seed_words, count, count > 0);
    return PyLong_FromUnsignedLongLong(v->seed[i]);
}

/* One round of live game i: Pacman's action (0-4; an illegal one is taken as Stop), then each ghost's move
   drawn from its stream, stopping when the game ends. Writes its reward, terminated, truncated and, changed
   cells only, its observation and mask. Returns 1 when the action was illegal. */
static int
games_advance(Games *v, int i, int action)
{
    const Searcher *se = v->searcher;
    const Board *b = se->board;
    int size = v->size, n = se->ghosts, illegal = 0;
    uint64_t *s = v->state + (size_t)i * size, *scratch = v->scratch;
    memcpy(v->before, s, sizeof(uint64_t) * size);
    long long before = ST_SCORE(s);
    int pac = ST_PAC(s), chosen = -1;
    int count = b->pac_count[pac];
    for (int j = 0; j < count; j++)
        if (b->pac_action[pac * 5 + j] == action)
            chosen = j;
    if (chosen < 0) { /* illegal: taken as Stop, always Pacman's last legal action */
        chosen = count - 1;
        v->illegal[i]++;
        illegal = 1;
    }
    successors(se, s, 0, scratch, NULL);
    memcpy(s, scratch + (size_t)chosen * size, sizeof(uint64_t) * size);
    Pcg64 *streams = v->stream + (size_t)i * v->agents;
    double p[5];
    for (int g = 1; g <= n && ST_STATUS(s) == PLAYING; g++) {
        int moves = successors(se, s, g, scratch, NULL);
        chance_probabilities(se, s, g, moves, p);
        /* agents/ghosts.py sample(): one uniform number, the first cumulative probability above it */
        double u = pcg_double(&streams[g]), total = 0.0;
        int pick = moves - 1;
        for (int j = 0; j < moves; j++) {
            total += p[j];
            if (u < total) {
                pick = j;
                break;
            }
        }
        memcpy(s, scratch + (size_t)pick * size, sizeof(uint64_t) * size);
    }
    v->moves[i]++;
    double *rewards = (double *)v->rewards.buf;
    unsigned char *terminated = (unsigned char *)v->terminated.buf, *truncated = (unsigned char *)v->truncated.buf;
    rewards[i] = (double)(ST_SCORE(s) - before);
    terminated[i] = ST_STATUS(s) != PLAYING;
    /* as Gymnasium's TimeLimit: the last allowed move truncates, even when it also ends the game */
    truncated[i] = v->max_moves > 0 && v->moves[i] >= v->max_moves;
    v->ended[i] = terminated[i] | truncated[i];
    games_observe_change(v, i, v->before);
    return illegal;
}

/* step(actions): one round of every game (an int64 action each); a game that ended at the last step starts
   again instead (reward 0, not ended). Writes the observations, rewards, terminated, truncated and masks. */
static PyObject *
games_step(Games *v, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    PyObject *result = NULL;
    if (view.itemsize != 8 || view.len != (Py_ssize_t)v->games * 8 || view.format == NULL
        || (strcmp(view.format, "q") != 0 && strcmp(view.format, "l") != 0 && strcmp(view.format, "<q") != 0
            && strcmp(view.format, "=q") != 0 && strcmp(view.format, "<l") != 0)) {
        PyErr_Format(PyExc_ValueError, "step: actions must be %d int64s", v->games);
        goto done;
    }
    const int64_t *actions = (const int64_t *)view.buf;
    for (int i = 0; i < v->games; i++) {
        if (!v->ended[i] && (actions[i] < 0 || actions[i] > 4)) {
            PyErr_Format(PyExc_ValueError, "step: action %lld of game %d is not one of 0..4 "
                         "(North, South, East, West, Stop)", (long long)actions[i], i);
            goto done;
        }
        if (!v->ended[i] && !v->seeded[i]) {
            PyErr_SetString(PyExc_ValueError, "step() before reset(): call reset() first");
            goto done;
        }
    }
    double *rewards = (double *)v->rewards.buf;
    unsigned char *terminated = (unsigned char *)v->terminated.buf, *truncated = (unsigned char *)v->truncated.buf;
    for (int i = 0; i < v->games; i++) {
        if (v->ended[i]) {
            games_start(v, i, NULL, 0, 0);
            rewards[i] = 0.0;
            terminated[i] = truncated[i] = 0;
        }
        else
            games_advance(v, i, (int)actions[i]);
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&view);
    return result;
}

/* A food or capsule set as a Python int (bit x * height + y), as GameState holds it. */
static PyObject *
games_set_int(Games *v, const uint64_t *words)
{
    int w = v->searcher->words;
    for (int k = 0; k < w; k++)
        for (int j = 0; j < 8; j++)
            v->bytes[k * 8 + j] = (unsigned char)(words[k] >> (8 * j));
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(v->bytes, (size_t)w * 8, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(v->bytes, (size_t)w * 8, 1, 0);
#endif
}

/* Game i's state as a GameState: the board, then the fields of GameState.position_key (pacman/state.py). */
static PyObject *
games_game_state_of(Games *v, int i)
{
    if (v->state_type == NULL) {
        PyErr_SetString(PyExc_ValueError, "Games: made without state_like, it cannot build GameStates");
        return NULL;
    }
    const uint64_t *s = v->state + (size_t)i * v->size;
    int n = v->searcher->ghosts, w = v->searcher->words;
    PyObject *fields = PyTuple_New(8), *args = NULL, *out = NULL;
    if (fields == NULL)
        return NULL;
    PyObject *ghosts = PyTuple_New(n), *timers = PyTuple_New(n);
    PyTuple_SET_ITEM(fields, 0, Py_NewRef(v->state_board));
    PyTuple_SET_ITEM(fields, 1, PyLong_FromLong(ST_PAC(s)));
    PyTuple_SET_ITEM(fields, 2, games_set_int(v, ST_FOOD(s, n)));
    PyTuple_SET_ITEM(fields, 3, games_set_int(v, ST_CAPS(s, n, w)));
    PyTuple_SET_ITEM(fields, 4, ghosts);
    PyTuple_SET_ITEM(fields, 5, timers);
    PyTuple_SET_ITEM(fields, 6, PyLong_FromLongLong(ST_SCORE(s)));
    PyTuple_SET_ITEM(fields, 7, PyLong_FromLong(ST_STATUS(s)));
    for (int k = 1; k < 8; k++)
        if (PyTuple_GET_ITEM(fields, k) == NULL)
            goto done;
    for (int g = 0; g < n; g++) {
        PyObject *key = PyLong_FromLong(ST_GHOST(s, g)), *timer = PyLong_FromLongLong(ST_TIMER(s, g));
        PyTuple_SET_ITEM(ghosts, g, key);
        PyTuple_SET_ITEM(timers, g, timer);
        if (key == NULL || timer == NULL)
            goto done;
    }
    args = PyTuple_Pack(1, fields);
    if (args != NULL) /* tuple.__new__(GameState, fields), as pacman/state.py builds its states */
        out = PyTuple_Type.tp_new((PyTypeObject *)v->state_type, args, NULL);
done:
    Py_XDECREF(args);
    Py_DECREF(fields);
    return out;
}

/* game_state(i) -> game i's state as a GameState (a Games made with state_like). */
static PyObject *
games_game_state(Games *v, PyObject *args)
{
    int i;
    if (!PyArg_ParseTuple(args, "i", &i) || games_index(v, i) < 0)
        return NULL;
    return games_game_state_of(v, i);
}

/* play(i, action) -> (GameState, reward, terminated, truncated, illegal): one round of game i alone, no
   autoreset (a single environment: the game must be live). */
static PyObject *
games_play(Games *v, PyObject *args)
{
    int i;
    long long action;
    if (!PyArg_ParseTuple(args, "iL", &i, &action) || games_index(v, i) < 0)
        return NULL;
    if (!v->seeded[i]) {
        PyErr_SetString(PyExc_ValueError, "step() before reset(): call reset() first");
        return NULL;
    }
    if (v->ended[i]) {
        PyErr_SetString(PyExc_ValueError, "step() after the episode ended: call reset() first");
        return NULL;
    }
    if (action < 0 || action > 4) {
        PyErr_Format(PyExc_ValueError, "action %lld is not one of 0..4 (North, South, East, West, Stop)", action);
        return NULL;
    }
    int illegal = games_advance(v, i, (int)action);
    PyObject *state = games_game_state_of(v, i);
    if (state == NULL)
        return NULL;
    return Py_BuildValue("(NdNNN)", state, ((double *)v->rewards.buf)[i],
                         PyBool_FromLong(((unsigned char *)v->terminated.buf)[i]),
                         PyBool_FromLong(((unsigned char *)v->truncated.buf)[i]), PyBool_FromLong(illegal));
}

/* state(i) -> game i's state in the form Searcher methods take (see read_state). */
static PyObject *
games_state(Games *v, PyObject *args)
{
    int i;
    if (!PyArg_ParseTuple(args, "i", &i) || games_index(v, i) < 0)
        return NULL;
    return write_state(v->searcher, v->state + (size_t)i * v->size);
}

/* progress(i) -> (Pacman moves, illegal actions taken as Stop, seed or None when it does not fit 64 bits). */
static PyObject *
games_progress(Games *v, PyObject *args)
{
    int i;
    if (!PyArg_ParseTuple(args, "i", &i) || games_index(v, i) < 0)
        return NULL;
    return Py_BuildValue("(LLK)", v->moves[i], v->illegal[i], (unsigned long long)v->seed[i]);
}

/* streams(i) -> each agent's stream in game i as (state high, state low, inc high, inc low): numpy's PCG64
   state, for copies and pickles of an environment. */
static PyObject *
games_streams(Games *v, PyObject *args)
{
    int i;
    if (!PyArg_ParseTuple(args, "i", &i) || games_index(v, i) < 0)
        return NULL;
    PyObject *out = PyTuple_New(v->agents);
    if (out == NULL)
        return NULL;
    for (int a = 0; a < v->agents; a++) {
        const Pcg64 *g = &v->stream[(size_t)i * v->agents + a];
        PyObject *item = Py_BuildValue("(KKKK)", (unsigned long long)g->state_high, (unsigned long long)g->state_low,
                                       (unsigned long long)g->inc_high, (unsigned long long)g->inc_low);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, a, item);
    }
    return out;
}

/* restore(i, state, streams, moves, illegal): game i carries on from `state` (the form Searcher takes) with
   these streams (as `streams` gives them), as if seeded and played so far; its seed is unknown (0). */
static PyObject *
games_restore(Games *v, PyObject *args)
{
    int i;
    PyObject *state, *streams;
    long long moves, illegal;
    if (!PyArg_ParseTuple(args, "iOOLL", &i, &state, &streams, &moves, &illegal) || games_index(v, i) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(streams, "restore: streams must be a sequence");
    if (seq == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != v->agents || moves < 0 || illegal < 0) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "restore: expected %d streams and counts >= 0", v->agents);
        return NULL;
    }
    Pcg64 *g = PyMem_Calloc(v->agents, sizeof(Pcg64));
    uint64_t *s = PyMem_Calloc(v->size, sizeof(uint64_t));
    PyObject *result = NULL;
    if (g == NULL || s == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int a = 0; a < v->agents; a++) {
        unsigned long long h, l, ih, il;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, a), "KKKK", &h, &l, &ih, &il))
            goto done;
        g[a] = (Pcg64){h, l, ih, il};
    }
    if (read_state(v->searcher, state, s) < 0)
        goto done;
    memcpy(v->state + (size_t)i * v->size, s, sizeof(uint64_t) * v->size);
    memcpy(v->stream + (size_t)i * v->agents, g, sizeof(Pcg64) * v->agents);
    v->seeded[i] = 1;
    v->seed[i] = 0;
    v->moves[i] = moves;
    v->illegal[i] = illegal;
    v->ended[i] = ST_STATUS(s) != PLAYING || (v->max_moves > 0 && moves >= v->max_moves);
    games_observe(v, i);
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(g);
    PyMem_Free(s);
    Py_DECREF(seq);
    return result;
}

/* stream(seed_words, child) -> (state, inc) of numpy's PCG64(SeedSequence(seed, spawn_key=(child,))) (child
   -1: no spawn key), and its next raw word: for tests that hold this section to numpy. */
static PyObject *
core_seeded_stream(PyObject *module, PyObject *args)
{
    PyObject *words;
    long child;
    if (!PyArg_ParseTuple(args, "Ol", &words, &child))
        return NULL;
    PyObject *seq = PySequence_Fast(words, "seeded_stream: words must be a sequence");
    if (seq == NULL)
        return NULL;
    int count = (int)PySequence_Fast_GET_SIZE(seq);
    uint32_t w[SEED_WORDS];
    if (count < 1 || count > SEED_WORDS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "seeded_stream: 1 to 32 words");
        return NULL;
    }
    for (int k = 0; k < count; k++)
        w[k] = (uint32_t)PyLong_AsUnsignedLongMask(PySequence_Fast_GET_ITEM(seq, k));
    Py_DECREF(seq);
    if (PyErr_Occurred())
        return NULL;
    Pcg64 g;
    pcg_seeded(w, count, child, &g);
    Pcg64 next = g;
    uint64_t raw = pcg_next64(&next);
    return Py_BuildValue("(KKKKK)", (unsigned long long)g.state_high, (unsigned long long)g.state_low,
                         (unsigned long long)g.inc_high, (unsigned long long)g.inc_low, (unsigned long long)raw);
}

static PyMethodDef games_methods[] = {
    {"reset", (PyCFunction)games_reset, METH_VARARGS,
     PyDoc_STR("reset(i, words=None) -> seed: start game i with a seed (its 32-bit words), or its seeder's next.")},
    {"step", (PyCFunction)games_step, METH_O, PyDoc_STR("step(actions): one round of every game (NEXT_STEP autoreset).")},
    {"state", (PyCFunction)games_state, METH_VARARGS, PyDoc_STR("state(i): game i's state, as Searcher takes it.")},
    {"game_state", (PyCFunction)games_game_state, METH_VARARGS,
     PyDoc_STR("game_state(i) -> GameState: game i's state (a Games made with state_like).")},
    {"play", (PyCFunction)games_play, METH_VARARGS,
     PyDoc_STR("play(i, action) -> (GameState, reward, terminated, truncated, illegal): one round of game i alone.")},
    {"streams", (PyCFunction)games_streams, METH_VARARGS,
     PyDoc_STR("streams(i) -> each agent's PCG64 in game i as (state high, state low, inc high, inc low).")},
    {"restore", (PyCFunction)games_restore, METH_VARARGS,
     PyDoc_STR("restore(i, state, streams, moves, illegal): game i carries on from this state and these streams.")},
    {"progress", (PyCFunction)games_progress, METH_VARARGS,
     PyDoc_STR("progress(i) -> (moves, illegal actions, seed): game i so far.")},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject GamesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pacman.agents._core.Games",
    .tp_doc = PyDoc_STR("Games(searcher, games, start, max_moves, width, height, observations, rewards, terminated, "
                        "truncated, masks, state_like=None): many games stepped at once, for the learning "
                        "environments."),
    .tp_basicsize = sizeof(Games),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)games_init,
    .tp_dealloc = (destructor)games_dealloc,
    .tp_methods = games_methods,
};

/* ================================================================ end of the games for learning environments */

static PyMethodDef core_functions[] = {
    {"distance_order", core_distance_order, METH_VARARGS,
     PyDoc_STR("distance_order(distances, cells) -> bytes: each cell's cells by maze distance, as uint16.")},
    {"seeded_stream", core_seeded_stream, METH_VARARGS,
     PyDoc_STR("seeded_stream(words, child) -> numpy's PCG64 of SeedSequence(seed, (child,)) and its next word.")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pacman.agents._core",
    .m_methods = core_functions,
    .m_doc = PyDoc_STR("The compiled search core: rules, built-in evaluations and ghost models, expectiminimax. "
                       "Used through pacman.agents.compiled."),
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    if (PyType_Ready(&BoardType) < 0 || PyType_Ready(&SearcherType) < 0)
        return NULL;
    if (PyType_Ready(&GamesType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&core_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&BoardType);
    if (PyModule_AddObject(module, "Board", (PyObject *)&BoardType) < 0) {
        Py_DECREF(&BoardType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(module, "Searcher", (PyObject *)&SearcherType) < 0) {
        Py_DECREF(&SearcherType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&GamesType);
    if (PyModule_AddObject(module, "Games", (PyObject *)&GamesType) < 0) {
        Py_DECREF(&GamesType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
