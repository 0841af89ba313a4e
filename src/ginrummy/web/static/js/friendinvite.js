// A table's "Invite a friend" box (js/seating.js): for a logged-in player seated at a table
// not over, the friends online now, each with an Invite button (POST /api/friends/invite, the
// private table's invite code with it); the answer comes back through js/friendpush.js.
import { api } from "./api.js";
import { el, replaceChildren, toast } from "./dom.js";
import { errorText } from "./format.js";
import { t } from "./i18n.js";
import { onFriendsChange, pushedPresence } from "./friendpush.js";
import { presenceText } from "./friends.js";

export class InviteBox {
  constructor(page) {
    this.page = page;
    this.friends = null;
    this.root = el("div", { class: "panel invite-friends", id: "invite-friends" });
    this.unlisten = onFriendsChange((message) => {
      if (message.type === "friends") this.load();
      else if (message.type === "presence") this.render();
    });
    this.load();
  }

  async load() {
    try {
      this.friends = (await api.friends()).friends;
    } catch {
      this.friends = [];
    }
    this.render();
  }

  async invite(name) {
    try {
      await api.inviteFriend(name, this.page.tableId, this.page.invite);
      toast(t("friends.invited", { name }));
    } catch (error) {
      toast(errorText(error), "error");
    }
  }

  render() {
    const online = (this.friends || []).map((f) => ({ ...f, presence: pushedPresence(f.id) || f.presence }))
      .filter((f) => f.presence && f.presence.status !== "offline");
    replaceChildren(this.root, el("h2", {}, t("friends.invite_title")),
      online.length ? el("ul", { class: "friend-list" }, online.map((f) => el("li", { class: "friend-row", dataset: { name: f.name } },
        el("span", { class: "player-name" }, f.name), " ",
        el("span", { class: "presence" }, presenceText(f.presence)), " ",
        el("button", { type: "button", class: "small friend-invite", dataset: { name: f.name },
          onclick: () => this.invite(f.name) }, t("friends.invite")))))
        : el("p", { class: "muted" }, this.friends ? t("friends.no_online") : t("common.loading")));
  }

  stop() {
    this.unlisten?.();
  }
}
