/* The expectiminimax of agents/search.py: node_value mirrors Searcher._value (max, min and chance layers,
   alpha-beta, Star1); ordered_value mirrors Searcher._ordered_value (Star2 probing, null windows, move ordering,
   the far-ghost shortcut of far.c).

   Two recursions, not one with options, because the Python engine has these two and the core answers with its
   node counts: node_value stores depth-limit leaves in the table and looks them up (so a repeated leaf costs one
   count), ordered_value keeps the table for inner nodes and skips leaves; node_value alone has min layers,
   ordered_value alone the far-ghost shortcut and the best-move entries. Folding them into one recursion with
   flags is exact only if search.py folds its pair the same way; both pairs are held to each other by
   tests/test_compiled_core.py and tests/test_star2.py. */

#include "core.h"

/* The table's hash of each child in `kids` (for the agent and depth they are searched at) into `hashes`, and
   a prefetch of each one's slot: by the time the search reaches a child, its slot is in the cache. */
void
child_hashes(const Searcher *se, const uint64_t *kids, int count, int agent, int depth, uint64_t *hashes)
{
    if (se->table_size <= 0)
        return;
    uint64_t tag = entry_tag(agent, depth > 0 ? depth : 0);
    for (int j = 0; j < count; j++) {
        hashes[j] = table_hash(se, kids + (size_t)j * se->size, tag);
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
double
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
    Py_ssize_t e = -1;
    size_t epoch = se->epoch;
    if (use_table) {
        /* depth-limit leaves are cached too: evaluations can cost more than a look-up */
        tag = entry_tag(agent, depth > 0 ? depth : 0);
        e = table_find(se, s, tag, h);
        if (e >= 0 && entry_lower(se, (size_t)e) == entry_upper(se, (size_t)e)) { /* a value; a bound is not */
            if (depth <= 0 || se->score_free) /* score-free: the entry may be an earlier search's, cut off */
                c->cut = 1;
            return table_given(se, s, entry_lower(se, (size_t)e));
        }
    }
    if (depth <= 0) {
        c->cut = 1;
        double v = evaluate(se, s), kept = table_kept(se, s, v);
        if (use_table && table_keep(se, s, tag, h, kept, kept, e, epoch) < 0) {
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
        double kept = table_kept(se, s, value);
        if (table_keep(se, s, tag, h, kept, kept, e, epoch) < 0) {
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
        if (table_get(se, s, tag, table_hash(se, s, tag), &stored) && stored > 0 && stored < count)
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
    uint64_t tag = entry_tag(agent, MOVE_DEPTH), h = table_hash(se, s, tag);
    size_t mask = se->slots - 1, i = (size_t)h & mask;
    uint32_t check = (uint32_t)(h >> 32);
    int size = se->size;
    while (se->slot[i].entry) { /* there already: overwrite, as a dict does */
        if (se->slot[i].check == check) {
            size_t e = se->slot[i].entry - 1;
            const uint64_t *stored = se->entry_state + e * ENTRY_WIDTH(size);
            if (stored[size] == tag && table_same(se, stored, s)) {
                entry_set(se, e, (double)move, (double)move);
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
        if (table_get(se, s, entry_tag(agent, depth), h, &hit)) {
            if (se->score_free)
                c->cut = 1;
            return table_given(se, s, hit);
        }
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
        hj = table_hash(se, kids + (size_t)j * size, entry_tag(next_agent, next_depth > 0 ? next_depth : 0));
    (void)hashes;
    return ordered_value(c, kids + (size_t)j * size, next_agent, next_depth, alpha, beta, level + 1, hj);
}

static double expand(Search *c, const uint64_t *s, int agent, int depth, double alpha, double beta, int level,
                     uint64_t h);

/* node_value with Star2 and move ordering (pacman.agents.search.Searcher._ordered_value), for chance layers.
   The table keeps bounds as well as values: what fails low or high here is kept as a bound, and a bound kept
   answers a later window it lies beyond. */
static double
ordered_value(Search *c, const uint64_t *s, int agent, int depth, double alpha, double beta, int level, uint64_t h)
{
    Searcher *se = c->se;
    c->nodes++;
    if (out_of_time(c))
        return 0.0;
    if (ST_STATUS(s) != PLAYING)
        return evaluate(se, s);
    if (depth <= 0) { /* not stored: a leaf costs about a look-up, and the table keeps room for inner nodes */
        c->cut = 1;
        return evaluate(se, s);
    }
    int use_table = se->table_size > 0;
    uint64_t tag = 0;
    Py_ssize_t e = -1;
    size_t epoch = se->epoch;
    if (use_table) {
        tag = entry_tag(agent, depth);
        e = table_find(se, s, tag, h);
        if (e >= 0) {
            double lower = entry_lower(se, (size_t)e), upper = entry_upper(se, (size_t)e);
            if (se->score_free) /* the entry may be an earlier search's, cut off by its depth */
                c->cut = 1;
            if (lower == upper)
                return table_given(se, s, lower);
            lower = table_given(se, s, lower);
            upper = table_given(se, s, upper);
            if (upper <= alpha)
                return upper; /* fails low, as its search would */
            if (lower >= beta)
                return lower; /* fails high */
        }
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
        double kept = table_kept(se, s, value);
        if (use_table && table_keep(se, s, tag, h, kept, kept, e, epoch) < 0) {
            c->stop = STOP_ERROR;
            return 0.0;
        }
        return value;
    }
    value = expand(c, s, agent, depth, alpha, beta, level, h);
    if (c->stop)
        return 0.0;
    if (use_table) {
        int failed;
        /* a bound is kept widened by the slack: the search promises only that the value is beyond its window,
           and a fail-soft result can be a rounding step inside the value (search.py: _widened) */
        double widen = isfinite(value) ? se->slack * (1.0 + fabs(value)) : 0.0;
        double kept = table_kept(se, s, value);
        if (alpha < value && value < beta)
            failed = table_keep(se, s, tag, h, kept, kept, e, epoch);
        else if (value <= alpha)
            failed = table_keep(se, s, tag, h, -INF, kept + widen, e, epoch); /* an upper bound */
        else
            failed = table_keep(se, s, tag, h, kept - widen, INF, e, epoch); /* a lower bound */
        if (failed < 0) {
            c->stop = STOP_ERROR;
            return 0.0;
        }
    }
    return value;
}

/* The search of a live inner node of ordered_value, not in the table: its value, or a bound beyond its window. */
static double
expand(Search *c, const uint64_t *s, int agent, int depth, double alpha, double beta, int level, uint64_t h)
{
    Searcher *se = c->se;
    (void)h;
    double value;
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
                    return best; /* a lower bound (ordered_value keeps it as one) */
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
    return value;
}

/* Searcher._ordered_root at `depth`: every root child's value into `values` (with `all_values`; else the best
   one's only) and the best index into *best_index, ties to `first` (if >= 0) and then to the first in action
   order (ranks_before); the root's value. */
double
ordered_root(Search *c, const uint64_t *root, int depth, int count, uint64_t *kids, int all_values, int first,
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
            take = v > best || (v == best && (bi < 0 || ranks_before(i, bi, first)));
        }
        else {
            double floor = ranks_before(i, bi, first) ? nextafter(best, -INF) : best;
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
