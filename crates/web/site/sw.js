// The static site's service worker: every file of the site cached at the
// first visit, then served from the cache first, so the board and its
// engine work with the network off. tools/build-site.sh fills in the
// cache's name, which carries a hash of the site's files (a new build is a
// new cache, and the old one is deleted), and the list of files.
const CACHE = 'stackfish-@HASH@';
const FILES = [@FILES@];

self.addEventListener('install', (event) => {
  // From the server, not the browser's HTTP cache: this build's files.
  const fresh = FILES.map((file) => new Request(file, { cache: 'reload' }));
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(fresh)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith('stackfish-') && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  if (event.request.method !== 'GET') return;
  event.respondWith(caches.open(CACHE)
    .then((cache) => cache.match(event.request, { ignoreSearch: true }))
    .then((hit) => hit || fetch(event.request)));
});
