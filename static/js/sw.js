// Penta's service worker. It makes the site installable, shows a page of its own when there is no
// network, and shows the notifications the server pushes. It never keeps a game's state: every page
// and every answer comes from the network; only the offline page (and what it needs) is kept.
"use strict";

const OFFLINE_URL = __OFFLINE_URL__;
const CACHE = "penta-offline-1";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const response = await fetch(OFFLINE_URL, { cache: "reload", credentials: "omit" });
    await cache.put(OFFLINE_URL, response.clone());
    // The offline page's stylesheet and images, so that it looks like the site without a network.
    const page = await response.text();
    const assets = [...page.matchAll(/(?:href|src)="(\/static\/[^"]+)"/g)].map((match) => match[1]);
    await cache.addAll([...new Set(assets)]);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(async () => (await caches.match(OFFLINE_URL)) || Response.error()));
    return;
  }
  const url = new URL(request.url);
  if (url.origin === self.location.origin && url.pathname.startsWith("/static/")) {
    event.respondWith(fetch(request).catch(async () => (await caches.match(request)) || Response.error()));
  }
});

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = { body: event.data.text() };
  }
  event.waitUntil(self.registration.showNotification(data.title || "Penta", {
    body: data.body || "",
    tag: data.tag,
    icon: data.icon,
    data: { url: data.url || "/" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data.url, self.location.origin).href;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const client of windows) {
      if (client.url === url && "focus" in client) return client.focus();
    }
    return self.clients.openWindow(url);
  })());
});
