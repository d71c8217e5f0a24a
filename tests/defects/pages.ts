// The pages frameworks and proxies answer with in place of the spec's Error, as they send them.

/** Express's finalhandler page for an error no error middleware of the app's own caught. */
export function expressErrorPage(message: string): string {
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${message}</pre>\n</body>\n</html>\n`;
}

/** nginx's own 401 page (auth_request in front of the API). */
export const NGINX_401 = '<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n<center><h1>401 Authorization Required</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** nginx's own 404 page (proxy_intercept_errors on). */
export const NGINX_404 = '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';

/** A single-page app's index.html, which its catch-all route serves for any path. */
export const SPA_INDEX = '<!doctype html>\n<html><head><meta charset="utf-8"><title>Pet Store</title></head><body><div id="root"></div><script src="/assets/index.js"></script></body></html>\n';

/** nginx's own 413 page (client_max_body_size, 1m by default). */
export const NGINX_413 = '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** Django REST framework's browsable API, the page its BrowsableAPIRenderer renders for a browser. */
export function browsableApiPage(path: string): string {
  return `<!DOCTYPE html>\n<html><head><title>Pet List – Django REST framework</title></head><body><div class="content-main"><h1>Pet List</h1><pre>GET ${path.replace(/[<>&"]/g, '')}</pre></div></body></html>\n`;
}
