/* The evaluations of agents/evaluation.py that the core runs (`score` is inline in core.h): `better` and the
   same features under `safe`'s weights, and better_bounds_within for Star1 and Star2. */

#include "core.h"

/* The maze distance from cell `here` to the nearest cell of `mask` (`count` cells), 0 if none
   (DistanceTable.nearest). With many cells set, walk the cells in order of distance from `here` (the
   layout's `order` table) to the first one set; with few, take the least distance over them. */
int
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

/* pacman.agents.dot_games DotGames.chance: the least, over the pairs of dots left (the dot, when one is left; each dot
   when the games have no pairs), of the product over the hunting ghosts of their dot game's value. The values are
   laid out [set][Pacman's cell][ghost state][game] (DotGames.core_form), so one ghost's games are side by side;
   ghost i reads the set dot_rule[i], the games solved against its moves. Each
   product multiplies the ghosts in order from 1.0, as DotGames.chance does; the values are never below 0, so a
   least of 0 is the answer. Where the games against two ghosts together were solved (dot_two, [Pacman's
   cell][ghost 1's state][ghost 2's state][game]) and both ghosts hunt, the one row read is those games': 1.0
   times the value, the value itself, as DotGames.chance takes it. */
static double
dot_chance(const Searcher *se, const uint64_t *s)
{
    const Board *b = se->board;
    int n = se->ghosts, w = se->words, cells = se->dot_cells, count = se->dot_count;
    const uint64_t *food = ST_FOOD(s, n);
    int left[64], many = 0;
    for (int k = 0; k < w; k++) {
        uint64_t word = food[k];
        while (word) {
            int c = k * 64 + lowest_bit(word);
            word &= word - 1;
            if (many < 64)
                left[many++] = se->dot_index[c];
        }
    }
    size_t games = (size_t)se->dot_games;
    size_t pacman = (size_t)se->dot_open[cell_of(b, ST_PAC(s))], columns = (size_t)cells * 5;
    const double *rows[DOT_GHOSTS];
    int hunting = 0;
    if (se->dot_two && !ST_TIMER(s, 0) && !ST_TIMER(s, 1)) { /* both of two ghosts hunt: their games together */
        int first = ST_GHOST(s, 0), second = ST_GHOST(s, 1);
        size_t g1 = (size_t)(se->dot_open[cell_of(b, first / 5)] * 5 + first % 5);
        size_t g2 = (size_t)(se->dot_open[cell_of(b, second / 5)] * 5 + second % 5);
        rows[hunting++] = se->dot_two + ((pacman * columns + g1) * columns + g2) * games;
    } else {
        for (int i = 0; i < n; i++) {
            if (ST_TIMER(s, i))
                continue;
            int key = ST_GHOST(s, i);
            const double *here = se->dot_values + ((size_t)se->dot_rule[i] * (size_t)cells + pacman) * columns * games;
            rows[hunting++] = here + (size_t)(se->dot_open[cell_of(b, key / 5)] * 5 + key % 5) * games;
        }
    }
    if (se->dot_pairs == 2) { /* every set of dots: the game of the dots left, the (set - 1)-th */
        if (!many)
            return 1.0;
        size_t t = 0;
        for (int x = 0; x < many; x++)
            t |= (size_t)1 << left[x];
        double chance = 1.0;
        for (int h = 0; h < hunting; h++)
            chance *= rows[h][t - 1];
        return chance < 1.0 ? chance : 1.0;
    }
    int pairs = se->dot_pairs && many > 1;
    double best = 1.0;
    for (int x = 0; x < many; x++) {
        for (int y = pairs ? x + 1 : x; y < (pairs ? many : x + 1); y++) {
            size_t t = (size_t)left[x];
            if (pairs) { /* pair (j, k), j < k, after the count single dots: (0, 1), (0, 2), ..., (1, 2), ... */
                size_t j = (size_t)left[x], k = (size_t)left[y];
                t = (size_t)count + j * (2 * (size_t)count - j - 1) / 2 + (k - j - 1);
            }
            double chance = 1.0;
            for (int h = 0; h < hunting; h++)
                chance *= rows[h][t];
            if (chance < best) {
                best = chance;
                if (best <= 0.0)
                    return best;
            }
        }
    }
    return best;
}

/* agents/evaluation.py better_evaluation, operation for operation. */
double
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
    if (status != PLAYING) {
        if (status == LOST)
            return value - se->lost_penalty;
        return se->dot_values ? value + se->dot_weight : value;
    }
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
    if (se->dot_values) /* as the game's end: (W + stake) P - behind (pacman.agents.evaluation._dots) */
        value = (value + se->dot_chance_weight * dot_chance(se, s)) - se->dot_behind;
    return value;
}

/* agents/evaluation.py better_bounds_within(state, plies), operation for operation: (low, high) holding
   `better` of every state `plies` moves of each agent can reach from `s`. */
void
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
            if (se->dot_values) { /* pacman.agents.evaluation._dots_bounds */
                *low = *low - se->dot_behind;
                top = top + (se->dot_chance_weight - se->dot_behind);
            }
            *high = top;
            return;
        }
    }
    double live = -se->step_price * (double)farthest
        - (n ? se->caught_penalty * (double)n + se->room_price * (double)se->room_cells : 0.0);
    double lost = n ? -se->lost_penalty : 0.0;
    double bottom = ((b0 - (double)(plies * b->move_cost)) - (double)((long long)n * b->lose_points))
        + (lost < live ? lost : live);
    if (se->dot_values) {
        bottom = bottom - se->dot_behind;
        top = top + (se->dot_chance_weight - se->dot_behind);
    }
    *low = bottom;
    *high = top;
}
