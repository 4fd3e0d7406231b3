/* The rules of pacman/state.py and pacman/rules.py: a layout's move tables (Board), every successor of a
   state, the collisions. */

#include "core.h"

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
    PyMem_Free(b->x2_at);
    PyMem_Free(b->y2_at);
    PyMem_Free(b->cell_at);
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
    PyMem_Free(b->x2_at);
    PyMem_Free(b->y2_at);
    PyMem_Free(b->cell_at);
    b->wall = PyMem_Malloc(b->cells);
    b->pac_count = PyMem_Calloc(b->positions, 1);
    b->pac_action = PyMem_Calloc((size_t)b->positions * 5, 1);
    b->ghost_count = PyMem_Calloc((size_t)b->positions * 5, 1);
    b->ghost_action = PyMem_Calloc((size_t)b->positions * 20, 1);
    b->x2_at = PyMem_Malloc(sizeof(int) * (size_t)b->positions);
    b->y2_at = PyMem_Malloc(sizeof(int) * (size_t)b->positions);
    b->cell_at = PyMem_Malloc(sizeof(int) * (size_t)b->positions);
    if (!b->wall || !b->pac_count || !b->pac_action || !b->ghost_count || !b->ghost_action || !b->x2_at
        || !b->y2_at || !b->cell_at) {
        PyErr_NoMemory();
        goto done;
    }
    for (int p = 0; p < b->positions; p++) {
        int x2 = p / b->stride, y2 = p % b->stride;
        b->x2_at[p] = x2;
        b->y2_at[p] = y2;
        b->cell_at[p] = ((x2 + 1) / 2) * b->height + (y2 + 1) / 2;
    }
    memcpy(b->wall, walls.buf, b->cells);
    board_build_moves(b);
    ok = 0;
done:
    PyBuffer_Release(&walls);
    return ok;
}

PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pacman.agents._core.Board",
    .tp_doc = PyDoc_STR("Board(width, height, walls, starts, rules): the move tables of one layout."),
    .tp_basicsize = sizeof(Board),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)board_init,
    .tp_dealloc = (destructor)board_dealloc,
};

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
   (se->size words each); their action indices (0-4) into `actions` if not NULL. Returns the count. Pacman's
   successors carry his heading where `s` keeps one. */
int
successors(const Searcher *se, const uint64_t *s, int agent, uint64_t *out, unsigned char *actions)
{
    const Board *b = se->board;
    int size = se->size, n = se->ghosts, w = se->words, S = b->stride;
    int pac = ST_PAC(s);
    long long score = ST_SCORE(s);
    if (agent == 0) {
        int count = b->pac_count[pac], heading = ST_HEADING(s);
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
            if (a != 4 && heading >= 0) /* pacman/state.py _headed: a step's direction; Stop keeps the heading */
                set_heading(o, a);
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
                int p = g / 5, x2 = b->x2_at[p], y2 = b->y2_at[p];
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
