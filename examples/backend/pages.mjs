// The application's own pages, served to the browser: a sign-in form, or
// for a signed-in user a link back to the chat and a sign-out button.
// Plain HTML (no script): the backend is an example, the web app is
// heraldd's.
const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example application</title>
<style>body{font:16px system-ui,sans-serif;max-width:28em;margin:4em auto}input,button{font:inherit}</style>
</head><body><h1>Example application</h1>${body}</body></html>`;

export function signInPage(error = '') {
  return page(`<p>Sign in, then chat on Herald: heraldd asks this backend who
your session cookie belongs to.</p>
${error ? `<p id="error" role="alert">${escape(error)}</p>` : ''}
<form id="login" method="post" action="/login">
  <input id="name" name="name" placeholder="your name" autocomplete="off" required maxlength="64">
  <button type="submit">Sign in</button>
</form>`);
}

export function signedInPage(user, chatUrl) {
  return page(`<p id="user">Signed in as <b>${escape(user)}</b>.</p>
<p><a id="chat" href="${escape(chatUrl)}">Open the chat</a></p>
<form id="logout" method="post" action="/logout"><button type="submit">Sign out</button></form>`);
}
