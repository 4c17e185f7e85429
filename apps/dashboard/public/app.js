// Entry point: sign-in, the header, and the hash router (#/, #/new, #/op/<id>, #/features[/<id>], #/eval, #/schedules).
import { currentSession, loadSession, onSessionChange, signIn, signOut } from './api.js';
import { button, fill, h, notice, setLive } from './dom.js';
import { evalView } from './view-eval.js';
import { featuresView } from './view-features.js';
import { listView } from './view-list.js';
import { newOperationView } from './view-new.js';
import { operationView } from './view-operation.js';
import { schedulesView } from './view-schedules.js';
import { signInView } from './view-sign-in.js';

// `npm start` prints a link with `#token=…`. Fragments never reach a server, but the token
// must not stay in the address bar or the history either: drop it before anything else runs,
// then trade it for a session cookie.
const fragmentToken = new URLSearchParams(location.hash.slice(1)).get('token');
if (fragmentToken) history.replaceState(null, '', `${location.pathname}${location.search}#/`);

const view = document.getElementById('view');
let cleanup = () => {};
let signInMessage = '';

function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query = ''] = hash.split('?');
  const op = /^\/op\/([a-z0-9]{6,40})$/.exec(path);
  if (op) return { name: 'operation', id: op[1], params: new URLSearchParams(query) };
  if (path === '/new') return { name: 'new', params: new URLSearchParams(query) };
  const feature = /^\/features(?:\/(fr[a-z0-9]{6,40}))?$/.exec(path);
  if (feature) return { name: 'features', id: feature[1] };
  if (path === '/eval') return { name: 'eval' };
  if (path === '/schedules') return { name: 'schedules' };
  return { name: 'list', params: new URLSearchParams(query) };
}

/** Demo mode, said on every page: what runs, and how to run real requests. */
const demoBanner = h('div', { id: 'demo-banner', class: 'demo-banner', role: 'note', hidden: true });
view.before(demoBanner);

function renderHeader(session, current) {
  demoBanner.hidden = !session?.demo;
  if (session?.demo) fill(demoBanner, h('strong', {}, 'Demo mode. '), session.demo);
  document.getElementById('nav').hidden = !session;
  document.getElementById('who').hidden = !session;
  document.getElementById('who-name').textContent = session ? session.user : '';
  for (const a of document.querySelectorAll(/** @type {'a'} */ ('[data-nav]'))) {
    if (a.dataset.nav === current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function render() {
  cleanup();
  cleanup = () => {};
  setLive('idle');
  const session = currentSession();
  const r = route();
  renderHeader(session, r.name);
  fill(view);
  if (!session) {
    document.title = 'Sign in · Pullwright';
    cleanup = signInView(view, {
      message: signInMessage,
      onSubmit: async (token) => {
        signInMessage = '';
        await signIn(token);
      },
    });
    return;
  }
  if (r.name === 'operation') cleanup = operationView(view, r.id, session, r.params);
  else if (r.name === 'new') cleanup = newOperationView(view, session, r.params);
  else if (r.name === 'features') cleanup = featuresView(view, session, r.id);
  else if (r.name === 'eval') cleanup = evalView(view);
  else if (r.name === 'schedules') cleanup = schedulesView(view);
  else cleanup = listView(view, session, r.params);
}

async function boot() {
  try {
    if (fragmentToken) {
      await signIn(fragmentToken).catch((err) => {
        signInMessage =
          err.status === 401 ? 'The token in the link was not accepted. Sign in with your token.' : err.message;
      });
    }
    if (!currentSession()) await loadSession();
  } catch (err) {
    fill(
      view,
      notice(
        'error',
        'The dashboard cannot reach the server',
        err.message,
        button('Try again', () => location.reload()),
      ),
    );
    return;
  }
  onSessionChange((session) => {
    if (!session && !signInMessage) signInMessage = 'You were signed out. Sign in again to continue.';
    render();
  });
  window.addEventListener('hashchange', render);
  document.getElementById('sign-out').addEventListener('click', async () => {
    signInMessage = 'Signed out.';
    // Stop the page's streams and timers first, so none of them asks with the ended session.
    cleanup();
    cleanup = () => {};
    await signOut().catch(() => undefined);
  });
  render();
}

boot();
