// First dashboard page: the operations list, newest first, refreshed every 2 s.
// The token comes from the URL fragment (never sent to the server in a URL) or the sign-in form,
// and is kept in sessionStorage only.
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get('token')) {
  sessionStorage.setItem('pullwright-token', fragment.get('token'));
  history.replaceState(null, '', location.pathname);
}

const $ = (id) => document.getElementById(id);
const text = (s) => document.createTextNode(s ?? '');

function age(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}

function cell(...children) {
  const td = document.createElement('td');
  for (const c of children) td.append(c);
  return td;
}

function render(operations) {
  const rows = $('rows');
  rows.replaceChildren();
  if (operations.length === 0) {
    const tr = document.createElement('tr');
    tr.append(cell(text('No operations yet.')));
    tr.firstChild.colSpan = 7;
    tr.firstChild.className = 'muted';
    rows.append(tr);
    return;
  }
  for (const op of operations) {
    const tr = document.createElement('tr');
    tr.dataset.id = op.id;
    const status = document.createElement('span');
    status.className = `status ${op.status}`;
    status.textContent = op.status.replace('_', ' ');
    if (op.error) status.title = op.error;
    const branch = document.createElement('code');
    branch.textContent = op.branch ?? '';
    const pr = op.pullRequest ? text(`#${op.pullRequest.number}`) : text('');
    tr.append(
      cell(status),
      cell(text(op.type)),
      cell(text(op.repo)),
      cell(text(op.description)),
      cell(branch),
      cell(pr),
      cell(text(age(op.createdAt))),
    );
    rows.append(tr);
  }
}

async function refresh() {
  const token = sessionStorage.getItem('pullwright-token');
  if (!token) return showSignIn();
  try {
    const res = await fetch('/v1/operations?limit=100', { headers: { authorization: `Bearer ${token}` } });
    if (res.status === 401) {
      sessionStorage.removeItem('pullwright-token');
      return showSignIn('That token was not accepted.');
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const body = await res.json();
    $('signin').hidden = true;
    $('operations').hidden = false;
    $('live').textContent = `updated ${new Date().toLocaleTimeString()}`;
    render(body.operations);
  } catch (err) {
    $('live').textContent = `cannot reach the API (${err.message}); retrying…`;
  }
}

function showSignIn(message = '') {
  $('operations').hidden = true;
  $('signin').hidden = false;
  $('signin-error').textContent = message;
  $('live').textContent = 'signed out';
}

$('signin-form').addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem('pullwright-token', $('token').value);
  refresh();
});

refresh();
setInterval(refresh, 2000);
