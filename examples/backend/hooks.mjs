// The four hooks heraldd POSTs to (docs/backend.md): each takes the JSON
// body heraldd sent and returns the JSON answer, one of {"result":...},
// {"error":{"code","message"}} or {"disconnect":{"code","reason"}}. The
// application's rules live here and nowhere else:
//   connect    the session cookie names the user; no session: error 1401
//   subscribe  chat:* for everyone, staff:* for "admin" only (else 1403)
//   publish    over MAX_TEXT characters: error 1413; "/shrug" is rewritten;
//              "/me <action>" is shown live as "* <user> <action>" and kept
//              out of the room's history (skip_history)
//   rpc        "whoami" and "time"; any other method: error 1404
export const SERVER_SIDE_ROOMS = ['chat:lobby'];
export const MAX_TEXT = 500;
export const SHRUG = '¯\\_(ツ)_/¯';

export function makeHooks(sessions) {
  return {
    connect(body) {
      const user = sessions.userOf(body.headers?.cookie);
      if (user === undefined) return { error: { code: 1401, message: 'sign in first' } };
      // rooms: server-side subscriptions, made by heraldd before its
      // connect reply; the client need not subscribe them.
      return { result: { user, info: { name: user }, rooms: SERVER_SIDE_ROOMS } };
    },

    subscribe(body) {
      const room = String(body.room ?? '');
      if (room.startsWith('chat:')) return { result: {} };
      if (room.startsWith('staff:')) {
        if (body.user === 'admin') return { result: { info: { staff: true } } };
        return { error: { code: 1403, message: `${room} is for staff only` } };
      }
      return { error: { code: 1403, message: `no room ${room} here: rooms are chat:*` } };
    },

    publish(body) {
      const data = body.data;
      const text = data && typeof data === 'object' ? data.text : undefined;
      if (typeof text !== 'string') return { result: {} };
      if ([...text].length > MAX_TEXT) {
        return { error: { code: 1413, message: `messages are at most ${MAX_TEXT} characters` } };
      }
      // The rest of the publication (the web app's nonce) is kept, so the
      // sender still recognises its own message.
      if (text.trim() === '/shrug') return { result: { data: { ...data, text: SHRUG } } };
      // An action is for whoever is there now: outside the room's stream,
      // so no history or recovery replays it.
      const action = /^\/me\s+(\S.*)$/.exec(text);
      if (action) {
        return { result: { data: { ...data, text: `* ${body.user} ${action[1]}` }, skip_history: true } };
      }
      return { result: {} };
    },

    rpc(body) {
      switch (body.method) {
        case 'whoami': return { result: { data: { user: body.user, client: body.client } } };
        case 'time': return { result: { data: { now: new Date().toISOString() } } };
        default: return { error: { code: 1404, message: `no method ${body.method}` } };
      }
    },
  };
}
