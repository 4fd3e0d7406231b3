/* The ghost models of agents/ghosts.py as chance layers: uniform; directional and arcade from the table of
   probabilities agents/compiled.py computes with the Python model itself (DirectionalGhost.probability_table),
   indexed by the shape of the ghost's moves. On the doubled grid every distance below is an exact integer, and
   compares as the Python floats do (a half cell is 1 here, 0.5 there: every quantity is doubled, every square
   quadrupled). */

#include "core.h"

/* The arcade's personalities by number: the number a Searcher is given for an arcade ghost (`aims`), its name
   (module.c publishes the names as _core.ARCADE_PERSONALITIES, which the Python side looks them up in). A new
   personality is a number here, its name, and its case in arcade_target (and in arcade_reads_heading if its
   target reads Pacman's heading). */
enum { AIM_CHASER, AIM_AMBUSHER, AIM_FLANKER, AIM_SHY, AIMS };
const char *const arcade_aim_names[AIMS] = {
    [AIM_CHASER] = "chaser", [AIM_AMBUSHER] = "ambusher", [AIM_FLANKER] = "flanker", [AIM_SHY] = "shy",
};
const int arcade_aims = AIMS;

/* Whether personality `aim`'s target reads Pacman's heading: every state a searcher with one sees must keep it. */
int
arcade_reads_heading(int aim)
{
    return aim == AIM_AMBUSHER || aim == AIM_FLANKER;
}

/* ArcadeGhost.target: the doubled-grid cell arcade ghost i aims at in `s` (not scared), into *tx, *ty. */
static void
arcade_target(const Searcher *se, const uint64_t *s, int i, int x, int y, int *tx, int *ty)
{
    const Board *b = se->board;
    int pac = ST_PAC(s), px = b->x2_at[pac], py = b->y2_at[pac];
    int aim = se->aim[i];
    if (aim == AIM_CHASER) {
        *tx = px;
        *ty = py;
        return;
    }
    if (aim == AIM_SHY) {
        long long dx = x - px, dy = y - py;
        int far = dx * dx + dy * dy > se->shy_distance2_squared;
        *tx = far ? px : se->shy_corner_x2;
        *ty = far ? py : se->shy_corner_y2;
        return;
    }
    /* the heading's vector; 4 (before Pacman's first step) is Stop's, (0, 0). Every state of a searcher whose
       ghosts read it keeps it (read_state refuses any other), so it is never -1 here. */
    int heading = ST_HEADING(s);
    int hx = heading >= 0 && heading < 4 ? DX[heading] : 0, hy = heading >= 0 && heading < 4 ? DY[heading] : 0;
    if (aim == AIM_AMBUSHER) {
        *tx = px + se->ambush2 * hx;
        *ty = py + se->ambush2 * hy;
        return;
    }
    /* the flanker: twice as far from ghost 1 as the pivot ahead of Pacman */
    int g = ST_GHOST(s, 0) / 5;
    int pivot_x = px + se->flank2 * hx, pivot_y = py + se->flank2 * hy;
    *tx = 2 * pivot_x - b->x2_at[g];
    *ty = 2 * pivot_y - b->y2_at[g];
}

/* ArcadeGhost.aimed: the index among the `count` legal moves `legal` of the one whose cell is nearest (x, y)'s
   target by straight-line distance, ties to the first in ARCADE_TIE_ORDER. A ghost that is not scared stands on a
   cell and steps a whole one (2 on the doubled grid). */
static int
arcade_aimed(const Searcher *se, const uint64_t *s, int i, int x, int y, const unsigned char *legal, int count)
{
    int tx, ty;
    arcade_target(se, s, i, x, y, &tx, &ty);
    int best = 0;
    long long nearest = 0;
    for (int j = 0; j < count; j++) {
        int a = legal[j];
        long long dx = x + DX[a] * 2 - tx, dy = y + DY[a] * 2 - ty;
        long long d = dx * dx + dy * dy;
        if (j == 0 || d < nearest || (d == nearest && se->tie_rank[a] < se->tie_rank[legal[best]])) {
            nearest = d;
            best = j;
        }
    }
    return best;
}

/* The chance probabilities of ghost `agent` in live state `s` with `count` legal actions, into `p`. */
void
chance_probabilities(const Searcher *se, const uint64_t *s, int agent, int count, double *p)
{
    int i = agent - 1;
    int kernel = se->kernel[i];
    if (kernel == GHOST_UNIFORM) {
        double uniform = 1.0 / count;
        for (int j = 0; j < count; j++)
            p[j] = uniform;
        return;
    }
    const Board *b = se->board;
    int key = ST_GHOST(s, i), here = key / 5;
    int scared = ST_TIMER(s, i) > 0;
    int x = b->x2_at[here], y = b->y2_at[here];
    const unsigned char *legal = b->ghost_action + key * 4;
    int mask = 0;
    if (kernel == GHOST_ARCADE && !scared) /* ArcadeGhost.distribution: the aimed move alone is best */
        mask = 1 << arcade_aimed(se, s, i, x, y, legal, count);
    else { /* DirectionalGhost's best moves (_nearest_or_farthest), and every scared arcade ghost's */
        int step = scared ? 1 : 2;
        int pac = ST_PAC(s);
        int px = b->x2_at[pac], py = b->y2_at[pac];
        int distance[4], target = 0;
        for (int j = 0; j < count; j++) {
            int a = legal[j];
            int dx = x + DX[a] * step - px, dy = y + DY[a] * step - py;
            distance[j] = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
            if (j == 0 || (scared ? distance[j] > target : distance[j] < target))
                target = distance[j];
        }
        for (int j = 0; j < count; j++)
            if (distance[j] == target)
                mask |= 1 << j;
    }
    const double *row = se->probability + ((size_t)((i * 2 + scared) * 5 + count) * MASKS + mask) * 4;
    for (int j = 0; j < count; j++)
        p[j] = row[j];
}
