// The friends page (/friends, docs/friends.md): add a friend by name, the requests received
// (accept, decline) and sent (withdraw), the friends with their presence (live, from
// js/friendpush.js), remove and block, and the blocked accounts (unblock).
import { api } from "./api.js";
import { el, replaceChildren, toast } from "./dom.js";
import { errorText } from "./format.js";
import { t } from "./i18n.js";
import { onFriendsChange, pushedPresence } from "./friendpush.js";
import { currentAccount, link, profilePath } from "./session.js";

/** A friend's presence in words ("Playing", "At a table", "Online", "Offline"). */
export function presenceText(presence) {
  if (!presence) return t("friends.status.offline");
  if (presence.tournament) return t("friends.status.tournament");
  if (presence.status === "table") return t(presence.playing ? "friends.status.playing" : "friends.status.table");
  return t(presence.status === "online" ? "friends.status.online" : "friends.status.offline");
}

export class FriendsPage {
  static pageName = "FriendsPage";

  constructor(root, go) {
    this.root = root;
    this.go = go;
    this.lists = null;
    this.busy = false;
    this.unlisten = null;
  }

  async start() {
    if (!currentAccount()) {
      this.go(`/login?next=${encodeURIComponent("/friends")}`, true);
      return;
    }
    this.unlisten = onFriendsChange((message) => {
      if (message.type === "friends") this.load();
      else if (message.type === "presence") this.render();
    });
    this.render();
    await this.load();
  }

  stop() {
    this.unlisten?.();
  }

  rerender() {
    this.render();
  }

  async load() {
    try {
      this.lists = await api.friends();
    } catch (error) {
      toast(errorText(error), "error");
    }
    this.render();
  }

  async act(action, name, done = null) {
    if (this.busy) return;
    this.busy = true;
    try {
      const answer = await api.friendAct(action, name);
      if (done) toast(t(answer.status === "accepted" ? "friends.now_friends" : done, { name }));
    } catch (error) {
      toast(errorText(error), "error");
    }
    this.busy = false;
    await this.load();
  }

  presenceOf(friend) {
    return pushedPresence(friend.id) || friend.presence;
  }

  row(person, ...buttons) {
    return el("li", { class: "friend-row", dataset: { name: person.name } },
      link(profilePath(person.name), person.name, { class: "player-name" }), " ", buttons);
  }

  button(action, name, label, extra = {}) {
    return el("button", { type: "button", class: `small friend-${action}`, ...extra,
      onclick: () => this.act(action, name) }, label);
  }

  render() {
    const lists = this.lists;
    const name = el("input", { id: "friend-name", type: "text", maxlength: "24", autocomplete: "off", required: true });
    const section = (id, title, people, make, empty = null) => el("div", { class: "panel", id },
      el("h2", {}, title),
      people.length ? el("ul", { class: "friend-list" }, people.map(make)) : null,
      empty && (id === "friend-blocked" || !people.length) ? el("p", { class: "muted" }, empty) : null);
    replaceChildren(this.root, el("section", { class: "friends-page", id: "friends-page", dataset: { loaded: String(Boolean(lists)) } },
      el("h1", {}, t("friends.title")),
      el("form", { class: "panel actions", id: "friend-add-form", onsubmit: (event) => {
        event.preventDefault();
        const wanted = name.value.trim();
        if (wanted) this.act("request", wanted, "friends.requested");
      } }, el("label", { for: "friend-name" }, t("friends.add_label")), name,
      el("button", { type: "submit", class: "primary", id: "friend-add" }, t("friends.add"))),
      !lists ? el("p", { class: "muted" }, t("common.loading")) : [
        lists.incoming.length ? section("friend-incoming", t("friends.incoming"), lists.incoming, (p) => this.row(p,
          this.button("accept", p.name, t("friends.accept"), { class: "small primary friend-accept" }),
          this.button("decline", p.name, t("friends.decline")))) : null,
        section("friend-list", t("friends.list"), lists.friends, (p) => {
          const presence = this.presenceOf(p);
          return el("li", { class: "friend-row", dataset: { name: p.name, presence: presence ? presence.status : "offline" } },
            link(profilePath(p.name), p.name, { class: "player-name" }), " ",
            el("span", { class: `presence presence-${presence ? presence.status : "offline"}` }, presenceText(presence)), " ",
            this.button("remove", p.name, t("friends.remove")),
            this.button("block", p.name, t("friends.block")));
        }, t("friends.none")),
        lists.outgoing.length ? section("friend-outgoing", t("friends.outgoing"), lists.outgoing, (p) => this.row(p,
          this.button("decline", p.name, t("friends.withdraw")))) : null,
        section("friend-blocked", t("friends.blocked"), lists.blocked, (p) => this.row(p,
          this.button("unblock", p.name, t("friends.unblock"))), t("friends.blocked_note")),
      ]));
  }
}
