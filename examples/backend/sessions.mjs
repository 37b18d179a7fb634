// Cookie sessions, as the application behind Herald would keep them: the
// browser holds only a random session id (HttpOnly, so page scripts cannot
// read it); the user it stands for lives here, in memory. A guessed or
// copied-from-elsewhere user name is therefore no way in: heraldd forwards
// the cookie and the backend alone maps it to a user.
import { randomBytes } from 'node:crypto';

export const COOKIE = 'session';

export class Sessions {
  #users = new Map(); // session id -> user

  // A new session for `user`; returns its id (32 random bytes, base64url).
  open(user) {
    const id = randomBytes(32).toString('base64url');
    this.#users.set(id, user);
    return id;
  }

  close(id) { this.#users.delete(id); }

  // The user of a Cookie header's session, or undefined.
  userOf(cookieHeader) {
    const id = sessionIdOf(cookieHeader);
    return id === undefined ? undefined : this.#users.get(id);
  }
}

// The session id in a Cookie header ("a=1; session=xyz"), or undefined.
export function sessionIdOf(cookieHeader) {
  for (const part of String(cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

// Set-Cookie values: SameSite=Lax keeps the cookie off other sites'
// requests (a page elsewhere cannot ride the session) yet sends it on a
// top-level navigation and on the web app's WebSocket. Cookies are per
// host, not port: one set by this backend on 127.0.0.1:8001 reaches
// heraldd on 127.0.0.1:8080.
export function setCookie(id) {
  return `${COOKIE}=${id}; HttpOnly; SameSite=Lax; Path=/`;
}

export function clearCookie() {
  return `${COOKIE}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0`;
}
