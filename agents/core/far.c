/* The far-ghost shortcut of agents/expectimax.py (PacmanGame.far_value): when no ghost can matter below a
   node, its exact value from Pacman's moves alone. */

#include "core.h"

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
int
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
