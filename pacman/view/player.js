/* pacman-ai game player: draws a recorded game on a canvas, round by round, from the data that
   pacman/view/web.py writes (the board once, then one short entry per round). No dependencies, no
   network. PacmanAI.mount(root, game, options) builds the player inside `root` and returns its
   controls; options: keys (the element whose key presses it answers), statusOn (where it sets
   data-status: "paused", "playing", or "done" at the last round), hash (a URL hash: #play, #end, #round=N,
   #speed=N), live (a live game's controls, from live.js: then the player follows the game as it is played,
   its buttons act on the game itself, and append/finish/control feed it). */
var PacmanAI = (function () {
  "use strict";
  var DIRECTIONS = ["North", "South", "East", "West", "Stop"];
  var VECTORS = [[0, 1], [0, -1], [1, 0], [-1, 0], [0, 0]];
  var HEADINGS = [Math.PI / 2, -Math.PI / 2, 0, Math.PI, 0];
  var MIN_SPEED = 0.5, MAX_SPEED = 120;
  var TICKS_PER_ROUND = 4;
  var ROUND = 5, GHOST = 4; /* a round: move, pacman x, y, facing, score, then x, y, direction, timer per ghost */

  function rgb(c, alpha) {
    return alpha === undefined ? "rgb(" + c.join(",") + ")" : "rgba(" + c.join(",") + "," + alpha + ")";
  }

  function make(tag, className, parent, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function value(v) {
    if (v === "inf") { return Infinity; }
    if (v === "-inf") { return -Infinity; }
    return v;
  }

  function grouped(x, digits) {
    return x.toLocaleString("en-US", {minimumFractionDigits: digits, maximumFractionDigits: digits});
  }

  function shown(v) {
    if (!isFinite(v)) { return v < 0 ? "-inf" : "+inf"; }
    return grouped(v, 1);
  }

  /* A duration in milliseconds as written in the panel: microseconds under a millisecond. */
  function duration(ms) {
    if (ms < 1) { return Math.round(ms * 1000) + " \u00B5s"; }
    return grouped(ms, 1) + " ms";
  }

  function relative(v, best) {
    if (!isFinite(v)) { return v < 0 ? "-inf" : "+inf"; }
    var difference = v - best;
    return Math.abs(difference) < 0.05 ? "0.0" : grouped(difference, 1);
  }

  function parseHash(hash) {
    var options = {};
    (hash || "").replace(/^#/, "").split("&").forEach(function (part) {
      if (!part) { return; }
      var pair = part.split("=");
      options[decodeURIComponent(pair[0])] = pair.length > 1 ? decodeURIComponent(pair[1]) : true;
    });
    return options;
  }

  function mount(root, game, options) {
    options = options || {};
    var live = options.live || null, finished = !live, paused = false, treeOn = false, alive = true;
    var statusOn = options.statusOn || root;
    var colours = game.palette, layout = game.layout;
    var W = layout.width, H = layout.height;
    var rounds = game.rounds, last = rounds.length - 1, numGhosts = game.numGhosts;
    var search = game.search || [];
    var roundSearch = game.roundSearch || null; /* live: what the search found, per round kept */
    var roundTree = [];
    var cell = Math.max(8, Math.min(32, Math.floor(Math.min(960 / W, 640 / H))));
    var ratio = Math.max(1, Math.min(3, window.devicePixelRatio || 1));

    /* What the board holds at round k: a dot or capsule is there until the round it is eaten in. */
    var eatenAt = {};
    game.eaten.forEach(function (e) { eatenAt[e[1] + "," + e[2]] = e[0]; });
    var foodLeft = [];
    (function () {
      var perRound = [], k, count = game.food.length;
      for (k = 0; k <= last; k++) { perRound.push(0); }
      game.food.forEach(function (cellXY) {
        var at = eatenAt[cellXY[0] + "," + cellXY[1]];
        if (at !== undefined) { perRound[at] += 1; }
      });
      for (k = 0; k <= last; k++) { count -= perRound[k]; foodLeft.push(count); }
    })();
    var isFood = {};
    game.food.forEach(function (p) { isFood[p[0] + "," + p[1]] = true; });

    function isWall(x, y) {
      return x >= 0 && x < W && y >= 0 && y < H && layout.walls[H - 1 - y].charAt(x) === "%";
    }

    function center(x, y) { return [(x + 0.5) * cell, (H - 1 - y + 0.5) * cell]; }

    /* -- the page around the canvas -------------------------------------------------------- */
    root.textContent = "";
    if (!root.hasAttribute("tabindex")) { root.setAttribute("tabindex", "0"); }
    var player = make("div", "pa-player", root);
    var main = make("div", "pa-main", player);
    var canvas = make("canvas", "pa-board", main);
    canvas.width = W * cell * ratio;
    canvas.height = H * cell * ratio;
    canvas.style.width = W * cell + "px";
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", "the board of " + layout.name);
    var ctx = canvas.getContext("2d");

    var status = make("div", "pa-status", main);
    var scoreBox = make("span", "", status, "Score ");
    var scoreText = make("b", "pa-score", scoreBox);
    var moveBox = make("span", "", status, "Move ");
    var moveText = make("b", "pa-move", moveBox);
    var totalText = make("span", "pa-dim", moveBox, live ? "" : " / " + game.result.moves);
    var foodBox = make("span", "", status, "Food ");
    var foodText = make("b", "pa-food", foodBox);
    var outcomeText = make("span", "pa-outcome", status);

    var controls = make("div", "pa-controls", main);
    function button(label, title, action, className) {
      var b = make("button", className || "", controls, label);
      b.type = "button";
      b.title = title;
      b.setAttribute("aria-label", title);
      b.addEventListener("click", function () { action(); });
      return b;
    }
    if (!live) {
      button("|\u25C0", "first round (Home)", function () { seek(0); });
      button("\u25C0", "one round back (left arrow)", function () { step(-1); });
    }
    var playButton = button("\u25B6 play", "play or pause (space)", function () { toggle(); }, "pa-play");
    button("\u25B6", live ? "one round, paused (n" + (game.keyboard ? ")" : " or right arrow)")
      : "one round forward (right arrow)", function () { step(1); });
    if (!live) { button("\u25B6|", "last round (End)", function () { seek(last); }); }
    var scrub = make("input", "pa-scrub", controls);
    if (live) { scrub.style.display = "none"; }
    scrub.type = "range";
    scrub.min = "0";
    scrub.max = String(last);
    scrub.step = "1";
    scrub.setAttribute("aria-label", "round");
    scrub.addEventListener("input", function () { seek(parseInt(scrub.value, 10)); });
    button("\u2212", "slower (-)", function () { slower(); });
    var speedText = make("span", "pa-speed", controls);
    button("+", "faster (+)", function () { faster(); });
    var treeButton = live ? button("tree", "the tree panel: the decision just made, searched again (t)",
      function () { live.tree(!treeOn); }) : null;

    var about = make("div", "pa-about", main);
    var agents = game.agents || {};
    var description = game.agent || agents.pacman || "an unrecorded agent";
    var chooser = agents.pacman || "Pacman";
    var who = description + (agents.ghosts ? " against " + agents.ghosts + " ghosts" : "");
    var crashText = null; // a crash in the user's own files: where, as the terminal shows it
    function describeGame() {
      var r = game.result;
      about.textContent = layout.name + " \u00B7 " + who + " \u00B7 seed " + r.seed + (finished ? " \u00B7 " +
        r.outcome + ", score " + r.score + " after " + r.moves + " moves" + (r.error ? " (" + r.error + ")" : "")
        : " \u00B7 live");
      var frames = finished && r.error_frames ? r.error_frames : [];
      if (frames.length && !crashText) { crashText = make("pre", "pa-about pa-error", main); }
      if (crashText) { crashText.textContent = frames.length ? frames.join("\n") + (r.error_hint ? "\nhint: " + r.error_hint : "") : ""; }
    }
    describeGame();
    var tallyText = live && game.games > 1 ? make("div", "pa-about pa-tally", main) : null;
    var keysHelp = make("div", "pa-about", main);
    keysHelp.innerHTML = live ? (game.keyboard ? "Keys: <kbd>\u2190</kbd> <kbd>\u2191</kbd> <kbd>\u2192</kbd> " +
      "<kbd>\u2193</kbd> (or WASD) steer Pacman \u00B7 " : "Keys: ") + "<kbd>space</kbd> pause/resume the game " +
      "\u00B7 <kbd>n</kbd> one round \u00B7 <kbd>+</kbd> <kbd>\u2212</kbd> speed \u00B7 <kbd>t</kbd> tree panel"
      : "Keys: <kbd>space</kbd> play/pause \u00B7 <kbd>\u2190</kbd> <kbd>\u2192</kbd> step \u00B7 " +
      "<kbd>Home</kbd> <kbd>End</kbd> first/last \u00B7 <kbd>+</kbd> <kbd>\u2212</kbd> speed";

    var panel = make("aside", "pa-panel", player);
    make("h2", "", panel, "What Pacman thinks");
    make("p", "pa-dim pa-agent", panel, agents.evaluation ? "evaluation: " + agents.evaluation +
      (agents.depth ? " \u00B7 depth " + agents.depth : "") : "agent: " + description);
    var caption = make("p", "pa-caption", panel);
    var table = make("table", "pa-values", panel);
    var head = make("tr", "", make("thead", "", table));
    make("th", "", head, "move");
    make("th", "pa-num", head, "value");
    make("th", "pa-num", head, "vs best");
    var body = make("tbody", "", table);
    var figures = make("dl", "pa-figures", panel);
    var note = make("p", "pa-dim pa-note", panel);
    var treePanel = live ? make("aside", "pa-panel pa-tree", player) : null;
    var treeBody = null;
    if (treePanel) {
      make("h2", "", treePanel, "The decision just made");
      treeBody = make("div", "pa-tree-body", treePanel);
      treePanel.style.display = "none";
    }

    /* -- drawing ------------------------------------------------------------------------------ */
    var maze = document.createElement("canvas");
    maze.width = canvas.width;
    maze.height = canvas.height;
    (function drawMaze() {
      var m = maze.getContext("2d");
      m.setTransform(ratio, 0, 0, ratio, 0, 0);
      m.fillStyle = rgb(colours.background);
      m.fillRect(0, 0, W * cell, H * cell);
      var outer = Math.max(4, Math.floor(cell * 0.5));
      var inner = Math.max(2, outer - Math.max(3, Math.floor(cell / 8)));
      [[outer, colours.wall], [inner, colours.wall_fill]].forEach(function (pass) {
        var width = pass[0];
        m.strokeStyle = m.fillStyle = rgb(pass[1]);
        m.lineWidth = width;
        m.lineCap = "butt";
        for (var y = 0; y < H; y++) {
          for (var x = 0; x < W; x++) {
            if (!isWall(x, y)) { continue; }
            var c = center(x, y);
            [[1, 0], [0, 1]].forEach(function (d) {
              if (isWall(x + d[0], y + d[1])) {
                var n = center(x + d[0], y + d[1]);
                m.beginPath();
                m.moveTo(c[0], c[1]);
                m.lineTo(n[0], n[1]);
                m.stroke();
              }
            });
            m.beginPath();
            m.arc(c[0], c[1], width / 2, 0, 2 * Math.PI);
            m.fill();
          }
        }
      });
    })();

    function disc(x, y, r, colour) {
      ctx.fillStyle = colour;
      ctx.beginPath();
      ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.fill();
    }

    function glide(old, now, fraction) {
      if (!old || fraction >= 1 || Math.abs(old[0] - now[0]) + Math.abs(old[1] - now[1]) > 1) { return now; }
      return [old[0] + (now[0] - old[0]) * fraction, old[1] + (now[1] - old[1]) * fraction];
    }

    function ghostOf(entry, i) {
      var b = ROUND + GHOST * i;
      return {x: entry[b], y: entry[b + 1], direction: entry[b + 2], timer: entry[b + 3]};
    }

    function drawGhost(position, index, direction, timer, tick) {
      var c = center(position[0], position[1]), cx = c[0], cy = c[1];
      var body = timer ? (timer <= 5 && Math.floor(tick) % 2 ? colours.scared_flash : colours.scared)
        : colours.ghosts[index % colours.ghosts.length];
      var r = cell * 0.42, top = cy - r * 0.15, feet = 4;
      disc(cx, top, r, rgb(body));
      ctx.fillRect(cx - r, top, 2 * r, r * 1.05);
      for (var i = 0; i < feet; i++) {
        disc(cx - r + (i + 0.5) * (2 * r / feet), top + r * 1.05, r / feet, rgb(body));
      }
      var v = VECTORS[direction];
      if (timer) {
        [-1, 1].forEach(function (side) {
          disc(cx + side * r * 0.35, top - r * 0.1, Math.max(1, r * 0.12), rgb(colours.ghost_eyes));
        });
        ctx.strokeStyle = rgb(colours.ghost_eyes);
        ctx.lineWidth = Math.max(1, Math.floor(cell / 16));
        ctx.beginPath();
        ctx.moveTo(cx - r * 0.5, top + r * 0.45);
        ctx.lineTo(cx + r * 0.5, top + r * 0.45);
        ctx.stroke();
        return;
      }
      [-1, 1].forEach(function (side) {
        var ex = cx + side * r * 0.38, ey = top - r * 0.1;
        disc(ex, ey, r * 0.28, rgb(colours.ghost_eyes));
        disc(ex + v[0] * r * 0.12, ey - v[1] * r * 0.12, r * 0.13, rgb(colours.ghost_pupils));
      });
    }

    function drawPacman(position, facing, tick) {
      var c = center(position[0], position[1]), cx = c[0], cy = c[1];
      var radius = cell * 0.42;
      disc(cx, cy, radius, rgb(colours.pacman));
      var opening = (4 + 36 * Math.abs(Math.sin(tick * 0.45))) * Math.PI / 180;
      var heading = HEADINGS[facing], reach = radius * 1.15;
      ctx.fillStyle = rgb(colours.background);
      ctx.beginPath();
      ctx.moveTo(cx, cy);
      [heading - opening, heading, heading + opening].forEach(function (angle) {
        ctx.lineTo(cx + reach * Math.cos(angle), cy - reach * Math.sin(angle));
      });
      ctx.closePath();
      ctx.fill();
    }

    function drawArrows(position, entry) {
      var c = center(position[0], position[1]), cx = c[0], cy = c[1];
      var names = Object.keys(entry.values);
      var ranked = names.slice().sort(function (a, b) { return value(entry.values[b]) - value(entry.values[a]); });
      names.forEach(function (name) {
        var index = DIRECTIONS.indexOf(name), v = VECTORS[index];
        if (!v || (v[0] === 0 && v[1] === 0)) { return; }
        var best = name === entry.action;
        var colour = best ? rgb(colours.win) : "rgb(120,120,140)";
        var length = cell * (best ? 0.95 : 0.75 - 0.1 * ranked.indexOf(name));
        var tip = [cx + v[0] * length, cy - v[1] * length];
        ctx.strokeStyle = ctx.fillStyle = colour;
        ctx.lineWidth = best ? 3 : 2;
        ctx.beginPath();
        ctx.moveTo(cx + v[0] * cell * 0.45, cy - v[1] * cell * 0.45);
        ctx.lineTo(tip[0], tip[1]);
        ctx.stroke();
        var back = [-v[0], v[1]], side = [v[1], v[0]];
        ctx.beginPath();
        ctx.moveTo(tip[0], tip[1]);
        ctx.lineTo(tip[0] + back[0] * 7 + side[0] * 5, tip[1] + back[1] * 7 + side[1] * 5);
        ctx.lineTo(tip[0] + back[0] * 7 - side[0] * 5, tip[1] + back[1] * 7 - side[1] * 5);
        ctx.closePath();
        ctx.fill();
      });
    }

    function drawBanner(text) {
      var colour = game.result.won ? colours.win : game.result.lost ? colours.lose : colours.text;
      /* A band of at most about a sixth of the board's height (and 40 pixels of text), never most of it. */
      var width = W * cell, size = Math.max(12, Math.min(40, Math.round(cell * 1.1), Math.floor(H * cell / 9)));
      ctx.font = "bold " + size + "px system-ui, 'DejaVu Sans', sans-serif";
      var measured = ctx.measureText(text).width;
      if (measured > width - 16) {
        size = Math.max(8, Math.floor(size * (width - 16) / measured));
        ctx.font = "bold " + size + "px system-ui, 'DejaVu Sans', sans-serif";
      }
      var band = Math.round(size * 1.5), y = (H * cell - band) / 2;
      bannerBox = {top: y, height: band, board: H * cell, font: size};
      ctx.fillStyle = "rgba(0,0,0,0.745)";
      ctx.fillRect(0, y, width, band);
      ctx.fillStyle = rgb(colour);
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(text, width / 2, y + band / 2);
    }

    function searchAt(k) {
      if (roundSearch) { return roundSearch[k] || null; }
      var move = rounds[k][0];
      return k > 0 && move > 0 && search.length >= move ? search[move - 1] : null;
    }

    var bannerBox = null; /* where the last frame put the end banner, for tests */

    function draw(k, fraction) {
      bannerBox = null;
      var entry = rounds[k], previous = k > 0 && fraction < 1 ? rounds[k - 1] : null;
      var tick = (k + fraction) * TICKS_PER_ROUND;
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(maze, 0, 0);
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      var foodColour = rgb(colours.food), capsuleColour = rgb(colours.capsule);
      game.food.forEach(function (p) {
        var at = eatenAt[p[0] + "," + p[1]];
        if (at === undefined || at > k) {
          var c = center(p[0], p[1]);
          disc(c[0], c[1], Math.max(2, cell * 0.1), foodColour);
        }
      });
      var pulse = 0.22 + 0.07 * Math.sin(tick * 0.35);
      game.capsules.forEach(function (p) {
        var at = eatenAt[p[0] + "," + p[1]];
        if (at === undefined || at > k) {
          var c = center(p[0], p[1]);
          disc(c[0], c[1], Math.max(3, cell * pulse), capsuleColour);
        }
      });
      for (var i = 0; i < numGhosts; i++) {
        var g = ghostOf(entry, i), old = previous ? ghostOf(previous, i) : null;
        drawGhost(glide(old ? [old.x, old.y] : null, [g.x, g.y], fraction), i, g.direction, g.timer, tick);
      }
      var pacman = glide(previous ? [previous[1], previous[2]] : null, [entry[1], entry[2]], fraction);
      var found = searchAt(k);
      if (found && found.values) { drawArrows(pacman, found); }
      drawPacman(pacman, entry[3], tick);
      if (k === last && fraction >= 1 && finished) {
        drawBanner(game.result.won ? "You win!" : game.result.lost ? "Game over" : game.result.outcome);
      }
    }

    function showPanel(k) {
      var found = searchAt(k), move = rounds[k][0];
      body.textContent = "";
      figures.textContent = "";
      note.textContent = "";
      table.style.display = found && found.values ? "" : "none";
      if (k === 0 || move === 0) {
        caption.textContent = "The game starts: no move yet.";
        return;
      }
      if (!search.length && !roundSearch) {
        caption.textContent = "Move " + move + ".";
        note.textContent = "No search was recorded for this game (a replay file from before version 2, " +
          "or an agent that does not search).";
        return;
      }
      if (!found) {
        caption.textContent = "Move " + move + ": no search recorded for this move.";
        return;
      }
      caption.textContent = "Move " + move + ": " + chooser + " chose " + found.action + ".";
      var names = Object.keys(found.values), best = -Infinity;
      names.forEach(function (name) {
        var v = value(found.values[name]);
        if (isFinite(v) && v > best) { best = v; }
      });
      if (best === -Infinity) { best = 0; }
      names.forEach(function (name) {
        var v = value(found.values[name]);
        var row = make("tr", name === found.action ? "pa-chosen" : "", body);
        make("td", "", row, name);
        make("td", "pa-num", row, shown(v));
        make("td", "pa-num", row, relative(v, best));
      });
      [["depth", found.depth], ["nodes", found.nodes === undefined || found.nodes === null ? null
        : grouped(found.nodes, 0) + (found.cached ? " (remembered)" : "")], ["time", found.ms === undefined || found.ms === null ? null
        : duration(found.ms)]].forEach(function (pair) {
        if (pair[1] === undefined || pair[1] === null) { return; }
        make("dt", "", figures, pair[0]);
        make("dd", "", figures, String(pair[1]));
      });
    }

    /* -- playing ------------------------------------------------------------------------------ */
    var round = 0, progress = 1, playing = false, speed = Math.min(MAX_SPEED, Math.max(MIN_SPEED, game.fps || 8));
    var lastTime = null, dirty = true, shownRound = -1;

    function setStatus(text) {
      statusOn.setAttribute("data-status", text);
      if (statusOn !== root) { root.setAttribute("data-status", text); }
    }

    function currentStatus() {
      if (live) { return finished ? "done" : paused ? "paused" : "playing"; }
      return playing ? "playing" : round === last ? "done" : "paused";
    }

    function refresh() {
      var entry = rounds[round];
      scoreText.textContent = String(entry[4]);
      moveText.textContent = String(entry[0]);
      foodText.textContent = String(foodLeft[round]);
      scrub.value = String(round);
      playButton.textContent = (live ? !paused && !finished : playing) ? "\u275A\u275A pause" : "\u25B6 play";
      speedText.textContent = (speed < 10 ? speed.toFixed(1) : Math.round(speed)) + " rounds/s";
      if (round === last && finished) {
        outcomeText.textContent = game.result.outcome;
        outcomeText.className = "pa-outcome" + (game.result.won ? " pa-won" : game.result.lost ? " pa-lost" : "");
      } else {
        outcomeText.textContent = "";
        outcomeText.className = "pa-outcome";
      }
      if (shownRound !== round) { showPanel(round); shownRound = round; }
      root.setAttribute("data-round", String(round));
      root.setAttribute("data-score", String(entry[4]));
      root.setAttribute("data-move", String(entry[0]));
      setStatus(currentStatus());
    }

    function render() {
      draw(round, progress);
      refresh();
      dirty = false;
    }

    function seek(k) {
      round = Math.max(0, Math.min(last, k | 0));
      progress = 1;
      playing = false;
      dirty = true;
      render();
    }

    function step(delta) {
      if (live) { if (delta > 0 && !finished) { live.step(); } return; }
      seek(round + delta);
    }

    function play() {
      if (live) { if (!finished) { live.resume(); } return; }
      if (round === last) { round = 0; progress = 1; }
      playing = last > 0;
      lastTime = null;
      dirty = true;
      render();
    }

    function pause() {
      if (live) { if (!finished) { live.pause(); } return; }
      playing = false;
      progress = 1;
      dirty = true;
      render();
    }

    function toggle() {
      if (live) { if (paused) { play(); } else { pause(); } return; }
      if (playing) { pause(); } else { play(); }
    }

    function faster() {
      if (live) { live.speed(Math.min(1000, speed * 1.5)); return; }
      speed = Math.min(MAX_SPEED, speed * 1.5); dirty = true; render();
    }

    function slower() {
      if (live) { live.speed(Math.max(0.1, speed / 1.5)); return; }
      speed = Math.max(MIN_SPEED, speed / 1.5); dirty = true; render();
    }

    function frame(now) {
      if (!alive) { return; }
      if (live) {
        if (progress < 1) {
          if (lastTime === null) { lastTime = now; }
          progress = Math.min(1, progress + Math.min(0.25, (now - lastTime) / 1000) * speed);
          dirty = true;
        }
        lastTime = now;
      } else if (playing) {
        if (lastTime === null) { lastTime = now; }
        progress += Math.min(0.25, (now - lastTime) / 1000) * speed;
        lastTime = now;
        while (progress >= 1) {
          if (round >= last) { progress = 1; playing = false; break; }
          round += 1;
          progress -= 1;
        }
        if (progress >= 1 && round >= last) { playing = false; }
        dirty = true;
      }
      if (dirty) { render(); }
      schedule();
    }

    function schedule() {
      if (window.requestAnimationFrame) {
        window.requestAnimationFrame(frame);
      } else {
        window.setTimeout(function () { frame(Date.now()); }, 16);
      }
    }

    var STEER = {ArrowUp: "North", ArrowDown: "South", ArrowRight: "East", ArrowLeft: "West",
                 w: "North", s: "South", d: "East", a: "West"};
    function onKey(event) {
      if (!alive || event.altKey || event.ctrlKey || event.metaKey) { return; }
      var target = event.target, tag = target && target.tagName;
      if (tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && target.type !== "range")) { return; }
      if (tag === "BUTTON" && (event.key === " " || event.key === "Enter")) { return; }
      if (live) {
        if (game.keyboard && STEER[event.key]) { live.key(STEER[event.key]); event.preventDefault(); return; }
        switch (event.key) {
          case " ": case "Spacebar": case "k": toggle(); break;
          case "n": case "ArrowRight": step(1); break;
          case "+": case "=": faster(); break;
          case "-": case "_": slower(); break;
          case "t": live.tree(!treeOn); break;
          default: return;
        }
        event.preventDefault();
        return;
      }
      switch (event.key) {
        case " ": case "Spacebar": case "k": toggle(); break;
        case "ArrowRight": step(1); break;
        case "ArrowLeft": step(-1); break;
        case "Home": seek(0); break;
        case "End": seek(last); break;
        case "+": case "=": faster(); break;
        case "-": case "_": slower(); break;
        default: return;
      }
      event.preventDefault();
    }
    var keyTarget = options.keys || root;
    keyTarget.addEventListener("keydown", onKey);

    /* A hash of the canvas's pixels (FNV-1a), so that a test can tell two frames apart. */
    function canvasHash() {
      var data = ctx.getImageData(0, 0, canvas.width, canvas.height).data, h = 0x811c9dc5;
      for (var i = 0; i < data.length; i++) { h = Math.imul(h ^ data[i], 16777619) >>> 0; }
      return h.toString(16);
    }

    /* -- live: the game arrives round by round ----------------------------------------------- */
    var KEEP = 256; /* rounds a live page keeps; older ones are dropped, so that a long game stays small */

    function showTree(tree) {
      if (!treeBody) { return; }
      treeBody.textContent = "";
      if (!tree) { return; }
      if (tree.charAt(0) !== "<") { make("p", "pa-dim", treeBody, tree); return; }
      var parsed = new DOMParser().parseFromString(tree, "image/svg+xml").documentElement;
      if (parsed.nodeName !== "svg") { make("p", "pa-dim", treeBody, "the tree could not be shown"); return; }
      parsed.removeAttribute("width");
      parsed.removeAttribute("height");
      parsed.setAttribute("class", "pa-tree-svg");
      treeBody.appendChild(document.importNode(parsed, true));
    }

    function append(message) {
      var entry = message.r, index = last + 1;
      rounds.push(entry);
      roundSearch.push(message.s || null);
      var count = foodLeft[last];
      (message.e || []).forEach(function (p) {
        var key = p[0] + "," + p[1];
        eatenAt[key] = index;
        if (isFood[key]) { count -= 1; }
      });
      foodLeft.push(count);
      last = index;
      if (rounds.length > KEEP) {
        var drop = KEEP / 2;
        rounds.splice(0, drop);
        roundSearch.splice(0, drop);
        foodLeft.splice(0, drop);
        Object.keys(eatenAt).forEach(function (key) { eatenAt[key] -= drop; });
        last -= drop;
      }
      round = last;
      progress = 0;
      lastTime = null;
      if (message.t !== undefined) { showTree(message.t); }
      dirty = true;
    }

    function finish(result, tally) {
      game.result = result;
      finished = true;
      progress = 1;
      totalText.textContent = " / " + result.moves;
      describeGame();
      if (tally) { showTally(tally); }
      dirty = true;
      render();
    }

    function showTally(tally) {
      if (!tallyText) { return; }
      tallyText.textContent = "Game " + Math.min(tally.games, game.game + 1) + " of " + tally.games + " \u00B7 " +
        tally.played + " played: " + tally.won + " won, " + tally.lost + " lost" +
        (tally.played ? ", mean score " + grouped(tally.total / tally.played, 1) : "");
      root.setAttribute("data-tally", JSON.stringify(tally));
    }

    function control(state) {
      paused = !!state.paused;
      speed = state.fps;
      treeOn = !!state.tree;
      if (treePanel) { treePanel.style.display = treeOn ? "" : "none"; }
      if (treeButton) { treeButton.className = treeOn ? "pa-on" : ""; }
      dirty = true;
    }

    var controlsApi = {
      play: play, pause: pause, toggle: toggle, seek: seek, step: step, faster: faster, slower: slower,
      canvasHash: canvasHash, append: append, finish: finish, control: control, showTally: showTally,
      destroy: function () { alive = false; keyTarget.removeEventListener("keydown", onKey); },
      state: function () {
        var entry = rounds[round];
        return {round: round, rounds: last + 1, move: entry[0], score: entry[4], food: foodLeft[round],
                pacman: [entry[1], entry[2]], banner: bannerBox,
                playing: live ? !paused && !finished : playing, speed: speed, status: currentStatus(),
                live: !!live, finished: finished, outcome: finished ? game.result.outcome : null};
      }
    };
    if (live && game.tally) { showTally(game.tally); }
    root.pacmanAI = controlsApi;

    var start = parseHash(options.hash);
    if (start.speed !== undefined && isFinite(parseFloat(start.speed))) {
      speed = Math.min(MAX_SPEED, Math.max(MIN_SPEED, parseFloat(start.speed)));
    }
    if (start.end) { round = last; }
    if (start.round !== undefined && isFinite(parseInt(start.round, 10))) {
      round = Math.max(0, Math.min(last, parseInt(start.round, 10)));
    }
    render();
    if (start.play) { play(); }
    schedule();
    return controlsApi;
  }

  return {mount: mount};
})();
