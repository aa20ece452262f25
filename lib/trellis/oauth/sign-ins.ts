import type { Request, Response } from 'express';
import { redacted } from '../../shared/redact';
import type { Logger } from '../../types';
import { clientMetadata, clientMetadataUrl } from './client-provider';
import { confirmedHere, connectUrl, forgetConfirmation, page, refusal, serveConnect } from './connect';
import { takeFlow } from './flow-state';
import { withSecret, type OAuthOptions } from './options';
import { ServerSignIn } from './sign-in';
import { MemoryStore } from '../../store/memory-store';
import type { Store } from '../../store/store';
import { TokenVault } from './vault';

const pathOf = (url: string) => new URL(url).pathname;

/**
 * The OAuth of one agentLoop: every server that needs users to sign in, the vault their tokens live in, and the
 * callback (and Client ID Metadata Document) it serves at each `redirectUrl`'s path on the app agentLoop is mounted on.
 */
export class SignIns {
  readonly vault: TokenVault;
  private readonly servers = new Map<string, ServerSignIn>();
  private readonly callbacks = new Map<string, OAuthOptions>();

  constructor(
    private readonly key: Buffer,
    private readonly logger: Logger,
    private readonly store: Store = new MemoryStore(),
  ) {
    this.vault = new TokenVault(key, store);
  }

  /** the sign-in to the server at `serverUrl`, named `server` (one per name) */
  add(server: string, serverUrl: string, given: OAuthOptions): ServerSignIn {
    let signIn = this.servers.get(server);
    if (!signIn) {
      const options = withSecret(given);
      signIn = new ServerSignIn({ server, options, vault: this.vault, key: this.key }, serverUrl, this.store);
      this.servers.set(server, signIn);
      this.callbacks.set(pathOf(options.redirectUrl), options);
    }
    return signIn;
  }

  get size(): number {
    return this.servers.size;
  }

  /** Serves the request when it is a callback, its confirmation page or its metadata document; false: not ours. */
  serve(req: Request, res: Response): boolean {
    if ((req.method !== 'GET' && req.method !== 'POST') || this.servers.size === 0) return false;
    const path = new URL(req.originalUrl, 'http://agent-loop').pathname;
    const confirming = [...this.callbacks.values()].find(
      (candidate) => pathOf(connectUrl(candidate.redirectUrl, '')) === path,
    );
    if (confirming) {
      serveConnect(req, res, this.key, confirming.redirectUrl);
      return true;
    }
    if (req.method !== 'GET') return false;
    const options = this.callbacks.get(path);
    if (options) {
      void this.callback(req, res, options.redirectUrl);
      return true;
    }
    const document = [...this.callbacks.values()].find(
      (candidate) =>
        clientMetadataUrl(candidate.redirectUrl) !== undefined &&
        pathOf(clientMetadataUrl(candidate.redirectUrl)!) === path,
    );
    if (!document) return false;
    res.json({ ...clientMetadata(document), client_id: clientMetadataUrl(document.redirectUrl) });
    return true;
  }

  private async callback(req: Request, res: Response, redirectUrl: string): Promise<void> {
    const query = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : undefined);
    const refuse = (why: string, meta: Record<string, unknown> = {}, status = 400) => {
      this.logger.warn('agent-loop refused an OAuth callback', { ip: req.ip, why, ...meta });
      res.status(status).type('html').send(refusal(why));
    };
    res.setHeader('cache-control', 'no-store');
    const error = query('error');
    if (error !== undefined) return refuse(`the authorization server answered '${error.slice(0, 80)}'`);
    const state = query('state');
    const code = query('code');
    if (!state || !code) return refuse('the link lacks its code or state');
    const opened = await takeFlow(this.key, state, this.store).catch(() => ({ failed: 'unreadable' as const }));
    if (!('flow' in opened)) return refuse(`the state is ${opened.failed}`);
    const { flow } = opened;
    forgetConfirmation(res, flow, redirectUrl);
    if (!confirmedHere(req, this.key, flow))
      return refuse(
        'this browser did not confirm it on the gateway’s page (open the link the gateway gave, in this browser)',
        { server: flow.server },
        403,
      );
    const signIn = this.servers.get(flow.server);
    if (!signIn) return refuse('the state names no server of this gateway');
    try {
      await signIn.complete(flow, code, query('iss'));
    } catch (failure) {
      return refuse('the authorization server did not confirm it', {
        server: flow.server,
        reason: redacted((failure as Error).message),
      });
    }
    this.logger.info('agent-loop stored OAuth tokens', { server: flow.server, user: flow.user });
    res
      .status(200)
      .type('html')
      .send(page(`${flow.server} is connected`, 'You can close this page and send your message again.'));
  }
}
