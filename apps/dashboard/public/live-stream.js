// The one server-sent-events loop of the dashboard: the badge says live, reconnecting or
// offline; a stream the server refuses is retried after a pause unless the session ended.
import { recheckSession } from './api.js';
import { setLive } from './dom.js';

const RECONNECT_MS = 5000;

/**
 * Follows `url()` (called on every (re)connect, so it can name the last event held) and calls
 * `onEvent` with each `event` frame's parsed data. `liveOn` is the frame that means the page is
 * current (`open`, or a server's `ready`), and `onLive` runs then. Returns the function that
 * stops it.
 */
export function liveStream({ url, event, onEvent, liveOn = 'open', onLive = () => {} }) {
  let source;
  let reconnect;
  let stopped = false;
  function connect() {
    source = new EventSource(url());
    source.addEventListener(liveOn, () => {
      setLive('live', 'Live');
      onLive();
    });
    source.addEventListener(event, (message) => onEvent(JSON.parse(message.data)));
    source.addEventListener('error', async () => {
      if (source.readyState !== EventSource.CLOSED) return setLive('reconnecting', 'Reconnecting…');
      setLive('offline', 'Offline');
      // A stream refused outright: the session may have ended (that signs out), or the server is down.
      if (!(await recheckSession().catch(() => true)) || stopped) return;
      reconnect = setTimeout(connect, RECONNECT_MS);
    });
  }
  connect();
  return () => {
    stopped = true;
    source?.close();
    clearTimeout(reconnect);
  };
}
