import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';

/** Shipped beside dist/ and lib/ alike: both are two levels below the package root. */
export const PAGE_DIR = path.join(__dirname, '..', '..', 'admin-page');

/**
 * The page holds no secret (it asks for the key); what it may load and where it may send is locked to its own origin.
 */
function pageHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader(
    'content-security-policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
      "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  next();
}

/**
 * The admin page: plain HTML, CSS and JS, no build step. Served at the mount path with a trailing slash, so that
 * its relative links (`admin.js`, `api/...`) stay under the mount whatever it is.
 */
export function adminPage(): Router {
  const page = express.Router();
  page.use(pageHeaders);
  page.get('/', function adminIndex(req, res) {
    const [pathname, query] = req.originalUrl.split('?');
    if (!pathname.endsWith('/')) return res.redirect(301, `${pathname}/${query === undefined ? '' : `?${query}`}`);
    // relative to `root`: with a whole path, send refuses any dot segment on it (pnpm's node_modules/.pnpm/...)
    res.sendFile('index.html', { root: PAGE_DIR });
  });
  page.use(express.static(PAGE_DIR, { index: false, fallthrough: true }));
  return page;
}
