/* The Searcher type of agents/compiled.py: Python state tuples in and out, and search(). */

#include "core.h"

/* Read a state tuple (pacman, food bytes, capsule bytes, ghost keys, timers, score, status[, heading]) into `s`:
   without the heading (0-4), a state of a game that does not track it, which a searcher whose ghosts read it
   refuses. */
int
read_state(const Searcher *se, PyObject *tuple, uint64_t *s)
{
    const Board *b = se->board;
    int pac, status, heading = -1;
    long long score;
    Py_buffer food, caps;
    PyObject *ghosts, *timers;
    if (!PyArg_ParseTuple(tuple, "iy*y*OOLi|i", &pac, &food, &caps, &ghosts, &timers, &score, &status, &heading))
        return -1;
    int ok = -1;
    int n = se->ghosts, w = se->words;
    PyObject *g = NULL, *t = NULL;
    if (heading < -1 || heading > NO_DIRECTION || (heading < 0 && PyTuple_GET_SIZE(tuple) > 7)) {
        PyErr_SetString(PyExc_ValueError, "state: Pacman's heading is out of range (0-4)");
        goto done;
    }
    if (heading < 0 && se->reads_heading) {
        PyErr_SetString(PyExc_ValueError, "state: a ghost aims ahead of Pacman, but the state keeps no heading");
        goto done;
    }
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
    set_heading(s, heading);
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

PyObject *
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
    if (ST_HEADING(s) >= 0)
        return Py_BuildValue("(iNNNNLii)", ST_PAC(s), food, caps, ghosts, timers, ST_SCORE(s), ST_STATUS(s),
                             ST_HEADING(s));
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
    PyMem_Free(se->kernel);
    PyMem_Free(se->aim);
    PyMem_Free(se->probability);
    PyMem_RawFree(se->rival);
    PyMem_Free(se->region);
    Py_XDECREF(se->dot_tables);
    Py_XDECREF(se->board);
    Py_TYPE(se)->tp_free((PyObject *)se);
}

/* Each ghost's kernel and, for the arcade's, its personality and the arcade's numbers (searcher_init's
   `kernels`, `aims`, `arcade`). */
static int
searcher_kernels(Searcher *se, int ghosts, PyObject *kernels, PyObject *aims, PyObject *arcade)
{
    PyObject *k = PySequence_Fast(kernels, "Searcher: kernels must be a sequence");
    if (k == NULL)
        return -1;
    PyObject *a = aims == Py_None ? NULL : PySequence_Fast(aims, "Searcher: aims must be a sequence");
    int ok = -1, any_arcade = 0;
    if (aims != Py_None && a == NULL)
        goto done;
    if (PySequence_Fast_GET_SIZE(k) != ghosts || (a != NULL && PySequence_Fast_GET_SIZE(a) != ghosts)) {
        PyErr_SetString(PyExc_ValueError, "Searcher: one kernel (and one aim) per ghost");
        goto done;
    }
    for (int i = 0; i < ghosts; i++) {
        long kernel = PyLong_AsLong(PySequence_Fast_GET_ITEM(k, i));
        if (kernel == -1 && PyErr_Occurred())
            goto done;
        if (kernel < 0 || kernel >= GHOST_KERNELS) {
            PyErr_Format(PyExc_ValueError, "Searcher: unknown ghost kernel %ld", kernel);
            goto done;
        }
        se->kernel[i] = (unsigned char)kernel;
        if (kernel != GHOST_ARCADE)
            continue;
        any_arcade = 1;
        long aim = a == NULL ? -1 : PyLong_AsLong(PySequence_Fast_GET_ITEM(a, i));
        if (aim == -1 && PyErr_Occurred())
            goto done;
        if (aim < 0 || aim >= arcade_aims) {
            PyErr_Format(PyExc_ValueError, "Searcher: arcade ghost %d has no known aim (%ld)", i + 1, aim);
            goto done;
        }
        se->aim[i] = (unsigned char)aim;
        if (arcade_reads_heading((int)aim))
            se->reads_heading = 1;
    }
    if (any_arcade) {
        int order[4], ambush, flank, shy, corner_x, corner_y;
        if (arcade == Py_None || !PyArg_ParseTuple(arcade, "(iiii)iiiii", &order[0], &order[1], &order[2], &order[3],
                                                   &ambush, &flank, &shy, &corner_x, &corner_y)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "Searcher: arcade ghosts need the arcade's numbers");
            goto done;
        }
        int seen = 0;
        for (int r = 0; r < 4; r++) {
            if (order[r] < 0 || order[r] > 3 || seen >> order[r] & 1) {
                PyErr_SetString(PyExc_ValueError, "Searcher: the arcade's tie order must name each direction once");
                goto done;
            }
            seen |= 1 << order[r];
            se->tie_rank[order[r]] = r;
        }
        if (ambush < 0 || flank < 0 || shy < 0 || ambush > 1 << 20 || flank > 1 << 20 || shy > 1 << 20
            || corner_x < -(1 << 20) || corner_x > 1 << 20 || corner_y < -(1 << 20) || corner_y > 1 << 20) {
            PyErr_SetString(PyExc_ValueError, "Searcher: the arcade's numbers are out of range");
            goto done;
        }
        se->ambush2 = 2 * ambush;
        se->flank2 = 2 * flank;
        se->shy_distance2_squared = (long long)(2 * shy) * (2 * shy);
        se->shy_corner_x2 = 2 * corner_x;
        se->shy_corner_y2 = 2 * corner_y;
    }
    ok = 0;
done:
    Py_DECREF(k);
    Py_XDECREF(a);
    return ok;
}

static int
searcher_init(Searcher *se, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"board", "ghosts", "evaluation", "minimise", "prune", "table_size", "slack",
                               "kernels", "probabilities", "distances", "weights", "order", "bounds",
                               "star2", "ordering", "horizon", "score_free", "dots", "aims", "arcade", NULL};
    PyObject *board, *kernels, *probabilities, *distances, *weights, *order = Py_None, *bounds = Py_None;
    PyObject *dots = Py_None, *aims = Py_None, *arcade = Py_None;
    int ghosts, evaluation, minimise, prune, star2 = 0, ordering = 0, horizon = -1, score_free = 0;
    Py_ssize_t table_size;
    double slack;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!iippndOOOO|OOppipOOO", keywords, &BoardType, &board, &ghosts,
                                     &evaluation, &minimise, &prune, &table_size, &slack, &kernels,
                                     &probabilities, &distances, &weights, &order, &bounds, &star2, &ordering,
                                     &horizon, &score_free, &dots, &aims, &arcade))
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
    if (evaluation < 0 || evaluation >= EVAL_KERNELS) {
        PyErr_Format(PyExc_ValueError, "Searcher: unknown evaluation %d", evaluation);
        return -1;
    }
    if (table_size < 0 || table_size > 0x7fffffff) {
        PyErr_SetString(PyExc_ValueError, "Searcher: table_size out of range");
        return -1;
    }
    if (dots != Py_None) { /* (open, index, values, cells, count, mode, two, rules, weight, chance weight,
                              behind): DotGames.core_form */
        PyObject *open_cells, *index, *values, *two, *rules;
        int cells, count, pairs;
        double weight, chance_weight, behind;
        if (!PyArg_ParseTuple(dots, "SSSiiiSSddd", &open_cells, &index, &values, &cells, &count, &pairs, &two,
                              &rules, &weight, &chance_weight, &behind))
            return -1;
        if (pairs < 0 || pairs > 2 || (pairs == 2 && (count < 1 || count > DOT_WHOLE_DOTS))) {
            PyErr_SetString(PyExc_ValueError, "Searcher: dots must be DotGames.core_form() of this layout");
            return -1;
        }
        /* the games: each dot (mode 0), then each pair (1), or every set of dots (2: DotGames.whole) */
        Py_ssize_t tables = pairs == 2 ? ((Py_ssize_t)1 << count) - 1
                            : pairs ? (Py_ssize_t)count + (Py_ssize_t)count * (count - 1) / 2 : count;
        if (ghosts > DOT_GHOSTS) {
            PyErr_Format(PyExc_ValueError, "Searcher: dot games take at most %d ghosts, not %d", DOT_GHOSTS, ghosts);
            return -1;
        }
        /* each ghost's set of tables (int32; empty bytes: every ghost reads the one set), the sets one after
           another in values */
        int sets = 1;
        Py_ssize_t given = PyBytes_GET_SIZE(rules);
        if (given != 0 && given != (Py_ssize_t)ghosts * 4)
            sets = -1;
        for (int i = 0; sets > 0 && i < ghosts; i++) {
            int32_t rule = given ? ((const int32_t *)PyBytes_AS_STRING(rules))[i] : 0;
            if (rule < 0 || rule >= DOT_GHOSTS)
                sets = -1;
            else {
                se->dot_rule[i] = rule;
                sets = rule + 1 > sets ? rule + 1 : sets;
            }
        }
        if (sets < 0 || cells < 1 || count < 1 || count > 64
            || PyBytes_GET_SIZE(open_cells) != (Py_ssize_t)b->cells * 4
            || PyBytes_GET_SIZE(index) != (Py_ssize_t)b->cells * 4
            || PyBytes_GET_SIZE(values) != sets * tables * cells * cells * 5 * (Py_ssize_t)sizeof(double)
            || (PyBytes_GET_SIZE(two) != 0
                && (ghosts != 2
                    || PyBytes_GET_SIZE(two) != tables * cells * cells * 25 * cells * (Py_ssize_t)sizeof(double)))) {
            PyErr_SetString(PyExc_ValueError, "Searcher: dots must be DotGames.core_form() of this layout");
            return -1;
        }
        se->dot_tables = dots;
        Py_INCREF(dots);
        se->dot_open = (const int32_t *)PyBytes_AS_STRING(open_cells);
        se->dot_index = (const int32_t *)PyBytes_AS_STRING(index);
        se->dot_values = (const double *)PyBytes_AS_STRING(values);
        se->dot_two = PyBytes_GET_SIZE(two) ? (const double *)PyBytes_AS_STRING(two) : NULL;
        se->dot_cells = cells;
        se->dot_count = count;
        se->dot_pairs = pairs;
        se->dot_games = (int)tables;
        se->dot_weight = weight;
        se->dot_chance_weight = chance_weight;
        se->dot_behind = behind;
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
    se->score_free = score_free && table_size > 0;
    /* far ghosts are skipped in Star2's and ordering's search, with uniform chance layers (checked below) */
    se->horizon = (se->star2 || se->ordering) ? horizon : -1;
    se->kernel = PyMem_Calloc(ghosts ? ghosts : 1, 1);
    se->aim = PyMem_Calloc(ghosts ? ghosts : 1, 1);
    se->probability = PyMem_Calloc((size_t)(ghosts ? ghosts : 1) * 2 * 5 * MASKS * 4, sizeof(double));
    if (!se->kernel || !se->aim || !se->probability) {
        PyErr_NoMemory();
        return -1;
    }
    /* kernels: one kernel number (GHOST_*) per ghost; aims: an arcade ghost's personality number (its place in
       arcade_aim_names), any other's ignored; arcade: (tie order as four direction numbers, ambush cells, flank
       cells, shy distance, shy corner x, y), the numbers of pacman.agents.ghosts; probabilities: per ghost, a dict
       {(scared, legal count, best mask): (p0, ...)} for the table kernels */
    if (searcher_kernels(se, ghosts, kernels, aims, arcade) < 0)
        return -1;
    for (int i = 0; i < ghosts; i++)
        if (se->kernel[i] != GHOST_UNIFORM)
            se->horizon = -1; /* the far-ghost shortcut adds up uniform chance layers only */
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
        if (se->kernel[i] == GHOST_UNIFORM)
            continue;
        if (!PyDict_Check(table)) {
            Py_DECREF(tables);
            PyErr_SetString(PyExc_TypeError, "Searcher: a directional or arcade ghost's probabilities must be a dict");
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

/* search(state, depth, all_values, star1, low, high, budget, node_limit, prefer) -> (value, best index, values,
   actions, nodes, complete, out of time): pacman.agents.search.Searcher.search from a Pacman (max) root, the whole
   tree in C. `budget` < 0: no deadline; else the seconds this search may take. `node_limit` < 0: none. `prefer`:
   the code of the root action that takes ties (its index in pacman.actions.ACTIONS), or -1 for action order. */
static PyObject *
searcher_search(Searcher *se, PyObject *args)
{
    PyObject *tuple;
    int depth, all_values, star1;
    double low, high, budget;
    long long node_limit = -1;
    int prefer = -1;
    if (!PyArg_ParseTuple(args, "Oiiiddd|Li", &tuple, &depth, &all_values, &star1, &low, &high, &budget, &node_limit,
                          &prefer))
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
    int first = -1; /* the index of the action that takes ties */
    for (int j = 0; j < count; j++)
        if (actions[j] == prefer)
            first = j;
    if (se->star2 || se->ordering) {
        /* pacman.agents.search.Searcher._ordered_root; with ordering, the shallower depths first */
        for (int shallower = 1; se->ordering && shallower < depth && !c.stop; shallower++)
            ordered_root(&c, root, shallower, count, kids, 0, -1, values, &best_index);
        c.cut = 0;
        if (!c.stop)
            best = ordered_root(&c, root, depth, count, kids, exact, first, values, &best_index);
    }
    else {
    child_hashes(se, kids, count, next_agent, next_depth, hashes);
    for (int j = 0; j < count; j++) {
        double v;
        int ahead = best_index >= 0 && ranks_before(j, best_index, first); /* takes a tie with the best so far */
        int take;
        if (exact) {
            v = node_value(&c, kids + (size_t)j * se->size, next_agent, next_depth, -INF, INF, 0, hashes[j]);
            take = v > best || (v == best && ahead);
        }
        else {
            double floor = ahead ? nextafter(best, -INF) : best; /* just below: a tie comes back exact */
            v = node_value(&c, kids + (size_t)j * se->size, next_agent, next_depth, floor, INF, 0, hashes[j]);
            take = v > floor;
        }
        if (c.stop)
            break;
        values[j] = v;
        if (take) {
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

PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pacman.agents._core.Searcher",
    .tp_doc = PyDoc_STR("Searcher(board, ghosts, evaluation, minimise, prune, table_size, slack, kernels, "
                        "probabilities, distances, weights, ..., aims, arcade): one agent's search on one layout."),
    .tp_basicsize = sizeof(Searcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)searcher_init,
    .tp_dealloc = (destructor)searcher_dealloc,
    .tp_methods = searcher_methods,
    .tp_getset = searcher_getset,
};
