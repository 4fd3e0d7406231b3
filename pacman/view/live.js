/* pacman-ai live view: connects the player (player.js) to a game being played, through the server that
   `pacman-ai play --display web` starts. The game arrives as Server-Sent Events from BASE + "events" (a
   "game" message when a game starts or the page connects, one "round" message per round, "control" when the
   pause or the speed changes, "end" when a game ends); the page's controls go back as POST requests to
   BASE + "control". Only this server is ever contacted (the page's Content Security Policy allows nothing
   else). PacmanLive.connect(root, base, options) returns the connection; root.pacmanLive is the same. */
var PacmanLive = (function () {
  "use strict";

  function connect(root, base, options) {
    options = options || {};
    var statusOn = options.statusOn || root;
    var player = null, source = null, over = false, controls = null, games = 0, messages = 0;
    var notice = null;

    function say(text) {
      if (!notice) { notice = document.createElement("p"); notice.className = "pa-about pa-connection"; }
      notice.textContent = text;
      if (notice.parentNode !== root) { root.appendChild(notice); }
      if (!text) { root.removeChild(notice); }
    }

    function post(body) {
      return window.fetch(base + "control", {
        method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
        cache: "no-store", credentials: "same-origin"
      }).then(function (answer) {
        return answer.json().then(function (data) {
          if (!answer.ok) { throw new Error(data.error || answer.status); }
          if (player && data.fps !== undefined) { controls = data; player.control(data); }
          return data;
        });
      }).catch(function (error) { say("the game did not take that: " + error.message); });
    }

    var live = {
      pause: function () { return post({command: "pause"}); },
      resume: function () { return post({command: "resume"}); },
      step: function () { return post({command: "step"}); },
      speed: function (fps) { return post({command: "speed", fps: fps}); },
      tree: function (on) { return post({command: "tree", on: !!on}); },
      key: function (name) { return post({command: "key", key: name}); }
    };

    function gameOf(hello) {
      return {
        layout: hello.layout, palette: hello.palette, food: hello.food, capsules: hello.capsules,
        numGhosts: hello.numGhosts, rounds: [hello.round], eaten: [], search: [], roundSearch: [hello.search],
        agents: hello.agents || {}, agent: hello.agent, keyboard: hello.keyboard, game: hello.game,
        games: hello.games, tally: hello.tally, fps: controls ? controls.fps : 8,
        result: {seed: hello.seed, score: hello.round[4], moves: hello.round[0], outcome: "", won: false,
                 lost: false}
      };
    }

    function on(event, handle) {
      source.addEventListener(event, function (e) {
        messages += 1;
        handle(JSON.parse(e.data));
      });
    }

    source = new window.EventSource(base + "events");
    on("game", function (hello) {
      if (player) { player.destroy(); }
      games += 1;
      say("");
      player = window.PacmanAI.mount(root, gameOf(hello), {keys: options.keys, statusOn: statusOn, live: live});
      if (controls) { player.control(controls); }
      if (hello.result) { player.finish(hello.result, hello.tally); }
    });
    on("round", function (message) { if (player) { player.append(message); } });
    on("control", function (state) { controls = state; if (player) { player.control(state); } });
    on("end", function (message) {
      if (player) { player.finish(message.result, message.tally); }
      if (message.last) {
        over = true;
        source.close();
        say("The game is over; the server has stopped. Run the command again for another game.");
      }
    });
    source.onopen = function () { if (!over) { say(""); } };
    source.onerror = function () {
      if (over) { return; }
      if (source.readyState === window.EventSource.CLOSED) {
        say("The connection to the game was lost (the server stopped?).");
        statusOn.setAttribute("data-status", "disconnected");
      } else {
        say("Connection lost: trying again...");
      }
    };

    var connection = {
      live: live,
      player: function () { return player; },
      stats: function () { return {games: games, messages: messages, over: over, readyState: source.readyState}; },
      close: function () { over = true; source.close(); }
    };
    root.pacmanLive = connection;
    return connection;
  }

  return {connect: connect};
})();
