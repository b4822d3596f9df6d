// The thread view: the route #/thread/<id> fetches the thread's messages from the API (the
// shell answers /api/ with the app's session, as CapacitorHttp does) and shows each one,
// its body through MessageBody.
(function () {
  "use strict";

  function threadId() {
    var match = /^#\/thread\/([\w-]+)$/.exec(window.location.hash);
    return match ? match[1] : null;
  }

  function show(messages) {
    var view = document.getElementById("thread-view");
    view.textContent = "";
    messages.forEach(function (message) {
      var article = document.createElement("article");
      article.className = "thread-message";
      article.dataset.messageId = message.id;
      var subject = document.createElement("h2");
      subject.className = "thread-message__subject";
      subject.textContent = message.subject;
      article.appendChild(subject);
      var html = message.htmlBody[0] ? message.htmlBody[0].content : "";
      var text = message.textBody[0] ? message.textBody[0].content : "";
      article.appendChild(window.MessageBody(html, text));
      view.appendChild(article);
    });
    view.dataset.state = "ready";
  }

  function load() {
    var id = threadId();
    if (!id) return;
    fetch("/api/v1.0/messages/?thread_id=" + encodeURIComponent(id), { credentials: "include" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (page) { show(page.results); })
      .catch(function (error) {
        var view = document.getElementById("thread-view");
        view.dataset.state = "error";
        view.textContent = "The thread could not be loaded: " + error.message;
      });
  }

  window.addEventListener("hashchange", load);
  load();
})();
