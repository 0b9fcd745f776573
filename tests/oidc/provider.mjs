// A real, certified OpenID provider (panva's oidc-provider) on a loopback port, for the
// console's single sign-on tests (tests/accounts/test_oidc.py). Its clients and accounts
// come from the environment; its login and consent pages are the library's own
// (devInteractions): any password is accepted for the accounts listed.
import Provider from "oidc-provider";

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const accounts = JSON.parse(process.env.OIDC_ACCOUNTS);
const clients = JSON.parse(process.env.OIDC_CLIENTS);

const provider = new Provider(issuer, {
  clients,
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["name"],
    groups: ["groups"],
  },
  scopes: ["openid", "email", "profile", "groups", "offline_access"],
  async findAccount(ctx, id) {
    if (!accounts[id]) return undefined;
    return { accountId: id, async claims() { return { sub: id, ...accounts[id] }; } };
  },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  ttl: { IdToken: Number(process.env.ID_TOKEN_TTL || 3600) },
  // Consent is asked once per client; the tests' accounts grant what is asked.
  loadExistingGrant: async (ctx) => {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope("openid email profile groups");
    grant.addOIDCClaims(["email", "email_verified", "name", "groups"]);
    await grant.save();
    return grant;
  },
});
provider.listen(port, "127.0.0.1", () => {
  console.log(`ready ${issuer}`);
});
