/* `Games`: whole games stepped in C for the environments (pacman/envs/core_games.py builds it: one game for
 * PacmanEnv, many at once for the vector environment), the rules of state.c and
 * ghosts.c reused as they are (`successors`, `chance_probabilities` of a Searcher built for the
 * game's ghost models). One step of a game is one round of pacman/game.py's
 * run_game: Pacman's action (an illegal one is taken as Stop), then each ghost's
 * move drawn from its own stream, stopping when the game ends. The streams are
 * numpy's: SeedSequence(seed).spawn(agents) and PCG64, written again in random.c bit for
 * bit, so a game seeded s is the game `pacman-ai play --seed s` plays (tests check
 * it against numpy and against the Python environment). A game that ended at the
 * last step starts again at the next one (Gymnasium's NEXT_STEP autoreset), its
 * seed the next raw word of its own seeder (a PCG64 seeded as Gymnasium seeds
 * `np_random`), halved. Grid observations are written into one caller's array: whole when a game starts,
 * then only the cells that changed; states go back to Python as GameStates (`play`, `game_state`).
 */

#include "core.h"

/* The grid's channels: walls, food, capsules, Pacman, ghosts, scared ghosts (pacman/envs/observations.py). */
#define GRID_CHANNELS 6

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
        if (!PyTuple_Check(state_like) || PyTuple_GET_SIZE(state_like) != 9) {
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
    PyObject *fields = PyTuple_New(9), *args = NULL, *out = NULL;
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
    /* HEADING: None in a game that does not track it */
    PyTuple_SET_ITEM(fields, 8, ST_HEADING(s) < 0 ? Py_NewRef(Py_None) : PyLong_FromLong(ST_HEADING(s)));
    for (int k = 1; k < 9; k++)
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

PyTypeObject GamesType = {
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
