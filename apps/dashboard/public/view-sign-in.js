// Sign-in: with GitHub when the server offers it (a plain link: the server runs the OAuth
// flow and sets the session cookie), or with a token posted once and forgotten.
import { h } from './dom.js';

/** Shows "Sign in with GitHub" above the token form when GITHUB_CLIENT_ID is configured. */
async function offerGitHub(slot) {
  const res = await fetch('/v1/session/github/status', { credentials: 'same-origin' }).catch(() => undefined);
  const body = res?.ok ? await res.json().catch(() => undefined) : undefined;
  if (!body?.enabled) return;
  slot.append(
    h('a', { class: 'btn primary block', href: '/v1/session/github', id: 'sign-in-github' }, 'Sign in with GitHub'),
    h('p', { class: 'hint' }, 'Your GitHub login is who you are here; your role comes from the team’s IDENTITIES.'),
    h('p', { class: 'muted' }, 'Or with a token:'),
  );
}

export function signInView(root, { message, onSubmit }) {
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    spellcheck: 'false',
    placeholder: 'Your dashboard token or the API token',
  });
  const error = h('p', { id: 'sign-in-error', class: 'form-error', role: 'alert' }, message ?? '');
  const submit = h('button', { type: 'submit', class: 'btn primary block' }, 'Sign in');
  const github = h('div', { class: 'sign-in-github' });
  offerGitHub(github);
  const form = h(
    'form',
    { class: 'sign-in card', id: 'sign-in-form', novalidate: true },
    h('h1', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'Watch operations, read their changes and decide on them.'),
    github,
    h('label', { for: 'token' }, 'Token'),
    input,
    error,
    submit,
    h(
      'p',
      { class: 'hint' },
      'Tokens are set by the operator: DASHBOARD_USERS for people, API_TOKEN for the operator. ',
      'The token is exchanged for a session cookie and is not stored in this browser.',
    ),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const token = input.value.trim();
    if (!token) {
      error.textContent = 'Enter a token.';
      input.focus();
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    error.textContent = '';
    try {
      await onSubmit(token);
    } catch (err) {
      input.value = '';
      error.textContent = err.status === 401 ? 'That token was not accepted.' : err.message;
      submit.disabled = false;
      submit.textContent = 'Sign in';
      input.focus();
    }
  });
  root.append(h('div', { class: 'sign-in-wrap' }, form));
  input.focus();
  return () => {};
}
