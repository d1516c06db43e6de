// The JSON API client: requests with the control token, one action at a time, and the live
// event stream with reconnection. Every failure becomes an ApiError with words to show.

export class ApiError extends Error {
  constructor(status, code, message, data = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data;
  }
}

const TOKEN_KEY = (id) => `scorekeeper.token.${id}`;

/** The control token this browser holds for game `id`, or null. */
export function tokenFor(id) {
  try { return localStorage.getItem(TOKEN_KEY(id)); } catch { return null; }
}

/** Remember the control token of game `id`. */
export function saveToken(id, token) {
  try { localStorage.setItem(TOKEN_KEY(id), token); } catch { /* private mode: session only */ }
}

/** A token passed in the address (#t=TOKEN, from the board's QR code): keep it, hide it. */
export function takeTokenFromHash(id) {
  const m = /(?:^#|&)t=([A-Za-z0-9_.~-]+)/.exec(location.hash);
  if (!m) return null;
  saveToken(id, m[1]);
  history.replaceState(null, "", location.pathname + location.search);
  return m[1];
}

/** One request; resolves to the parsed JSON body or throws ApiError. */
export async function call(method, url, body = undefined, token = null) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let resp;
  try {
    resp = await fetch(url, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "network", "The server cannot be reached: check the Wi-Fi, then tap again (nothing is ever recorded twice).");
  }
  let data = null;
  try { data = await resp.json(); } catch { data = null; }
  if (!resp.ok) {
    const message = (data && data.message) || `The server answered ${resp.status} ${resp.statusText}.`;
    throw new ApiError(resp.status, (data && data.error) || "error", message, data);
  }
  return data;
}

/**
 * One game, kept in step with the server.
 * onState(game, why) runs after every change ("load", "action", "stream", "stale");
 * onConnection(ok, text) when the connection is lost or back.
 */
/** The first client made for each game on this page: the one that holds the live stream. */
const primaries = new Map();

/**
 * Follow a game's state with onState(game, why): through the page's own client of that game
 * when it has one (one live stream a page: the server allows a device only a few), else
 * through a client of its own that loads the game and opens a stream.
 */
export function followGame(id, onState) {
  const main = primaries.get(id);
  if (main) {
    main.listeners.push(onState);
    if (main.game) onState(main.game, "load");
    return main;
  }
  const client = new GameClient(id, { onState });
  // A game that is not there (404) has nothing to follow; any other failure may pass.
  client.load().then(() => client.stream(), (err) => { if (err.status !== 404) client.stream(); });
  return client;
}

export class GameClient {
  constructor(id, { onState = () => {}, onConnection = () => {} } = {}) {
    if (!primaries.has(id)) primaries.set(id, this);
    this.listeners = [];
    this.id = id;
    this.url = `/api/games/${encodeURIComponent(id)}`;
    this.token = takeTokenFromHash(id) || tokenFor(id);
    this.version = -1;
    this.game = null;
    this.onState = onState;
    this.onConnection = onConnection;
    this.queue = Promise.resolve();
    this.source = null;
    this.retryMs = 1000;
    this.connected = null;
  }

  /** Whether this browser may act: it holds the token, or the server saw its cookie. */
  get canControl() { return Boolean(this.token) || Boolean(this.game && this.game.control); }

  setToken(token) { this.token = token; saveToken(this.id, token); }

  _apply(data, why) {
    if (!data || typeof data.version !== "number") return false;
    if (data.version < this.version && why !== "undo") return false;
    // An action's answer can arrive after the stream already brought the same version with
    // its advice: keep the state that has the advice.
    if (data.version === this.version && this.game?.state?.turn?.advice_pending === false
        && data.state?.turn?.advice_pending === true) return false;
    const merged = { ...(this.game || {}), ...data };
    if (this.game && this.game.control && data.control === undefined) merged.control = true;
    this.game = merged;
    this.version = data.version;
    this.onState(merged, why);
    for (const listen of this.listeners) listen(merged, why);
    return true;
  }

  _connection(ok, text = "") {
    if (ok === this.connected) return;
    this.connected = ok;
    this.onConnection(ok, text);
  }

  /** Fetch the whole game. */
  async load(why = "load") {
    try {
      const data = await call("GET", this.url);
      this._connection(true);
      this.version = -1;
      this._apply(data, why);
      return data;
    } catch (err) {
      if (err.status === 0) this._connection(false, err.message);
      throw err;
    }
  }

  /**
   * Send one action with the version this page saw. Actions run one after another.
   * A stale version (409) reloads the state and rethrows so the page can say so.
   */
  act(action) {
    const run = async () => {
      const body = { version: this.version, ...action };
      try {
        const data = await call("POST", `${this.url}/actions`, body, this.token);
        this._connection(true);
        this._apply(data, "action");
        return data;
      } catch (err) {
        if (err.status === 0) this._connection(false, err.message);
        if (err.status === 409) {
          if (err.data && err.data.state && typeof err.data.version === "number") {
            this.version = -1;
            this._apply(err.data, "stale");
          } else {
            await this.load("stale").catch(() => {});
          }
        }
        throw err;
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => {});
    return next;
  }

  /** Follow the server-sent events stream; reconnects by itself. */
  stream() {
    if (this.source) this.source.close();
    const es = new EventSource(`${this.url}/stream`);
    this.source = es;
    es.onopen = () => {
      this.retryMs = 1000;
      this.refusedText = "";
      clearTimeout(this.lostTimer);
      this.lostTimer = null;
      this._connection(true);
    };
    es.onmessage = (ev) => this._onEvent(ev);
    es.addEventListener("state", (ev) => this._onEvent(ev));
    es.onerror = () => {
      // The server ends each stream after a while and the browser reconnects at once: say
      // the connection is lost only when it stays down.
      if (!this.lostTimer) {
        this.lostTimer = setTimeout(() => {
          this.lostTimer = null;
          if (this.source && this.source.readyState !== EventSource.OPEN) {
            this._connection(false, this.refusedText || "Connection to the server lost. Retrying…");
          }
        }, 2500);
      }
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        this._whyRefused(es);
        setTimeout(() => { if (this.source === es) this.stream(); }, this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, 8000);
      }
    };
  }

  /** An EventSource refused with an HTTP error hides the answer: ask once more and, when
   * the server is full (503), show its words ("this device already has 8 live views open"). */
  _whyRefused(es) {
    const ctl = new AbortController();
    fetch(`${this.url}/stream`, { signal: ctl.signal, cache: "no-store" }).then(async (resp) => {
      if (resp.status === 503 && this.source === es) {
        const data = await resp.json().catch(() => null);
        if (data && data.message) {
          this.refusedText = `Live updates paused: ${data.message}. Retrying…`;
          this._connection(false, this.refusedText);
        }
      }
      ctl.abort();
    }).catch(() => {});
  }

  _onEvent(ev) {
    let data;
    try { data = JSON.parse(ev.data); } catch { return; }
    this._connection(true);
    if (data && data.state && typeof data.version === "number") {
      // The same version comes again once its advice is worked out (advice_pending).
      const pending = Boolean(this.game?.state?.turn?.advice_pending);
      if (data.version > this.version || (data.version === this.version && pending)) {
        this._apply(data, "stream");
      }
    } else if (data && typeof data.version === "number" && data.version > this.version) {
      this.load("stream").catch(() => {});
    }
  }
}
