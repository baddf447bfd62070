/// `multiscreen.js`: the page side of the bridge, injected into every page Multiscreen shows (before the page's own
/// scripts), so no page has to ship or load it.
///
/// - `multiscreen.request(method, params)` posts `{id, method, params}` to the `multiscreen` handler and returns a
///   Promise settled by the reply with that id (the hybrid seed's `sendPostMessage` shape);
///   `multiscreen.send(text, screen)` is `request("send", …)`.
/// - Everything Multiscreen tells the page arrives through one function the page cannot replace
///   (`__multiscreenDeliver`, a non-writable property, called with the packets handed over at one time): for each,
///   a `multiscreen` `CustomEvent` on `window` whose `detail` is the packet (`{kind: "reply", id, reply}`, `{kind: "event", event}` or `{kind: "message", text, screen}`), and
///   for messages also the starter kit's global `receiveMessage(text)` when the page defines one.
/// - Packets are JSON values, so the text inside them is data: it is never evaluated.
public enum BridgeScript {
    public static let source = #"""
        (function () {
          'use strict';
          if (window.multiscreen) { return; }
          var handlers = window.webkit && window.webkit.messageHandlers;
          var pending = new Map();
          var nextId = 1;
          function request(method, params) {
            var id = nextId++;
            return new Promise(function (resolve, reject) {
              pending.set(id, { resolve: resolve, reject: reject });
              handlers.multiscreen.postMessage(JSON.stringify({ id: id, method: method, params: params || {} }));
            });
          }
          function deliverOne(packet) {
            if (packet.kind === 'reply' && pending.has(packet.id)) {
              var waiting = pending.get(packet.id);
              pending.delete(packet.id);
              if (packet.reply.error) {
                var error = new Error(packet.reply.error.message);
                error.code = packet.reply.error.code;
                waiting.reject(error);
              } else {
                waiting.resolve(packet.reply.result);
              }
            }
            window.dispatchEvent(new CustomEvent('multiscreen', { detail: packet }));
            if (packet.kind === 'message' && typeof window.receiveMessage === 'function') {
              window.receiveMessage(packet.text);
            }
          }
          // One script carries all the packets handed over at one time: a listener or receiveMessage that throws
          // does not keep the others from theirs (the first error is thrown afterwards, for the console).
          function deliver(packets) {
            var failure = null;
            for (var i = 0; i < packets.length; i++) {
              try { deliverOne(packets[i]); } catch (error) { if (failure === null) { failure = error; } }
            }
            if (failure !== null) { throw failure; }
          }
          Object.defineProperty(window, '__multiscreenDeliver', { value: deliver, writable: false, configurable: false });
          window.multiscreen = Object.freeze({
            request: request,
            send: function (text, screen) { return request('send', screen ? { text: text, screen: screen } : { text: text }); }
          });
        })();
        """#
}
