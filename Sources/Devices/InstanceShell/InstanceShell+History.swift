import Foundation

/// Back, and the back-forward cache (seed 004, ADR 0006): iOS's edge swipe goes back in the
/// WebView's history, Android's back key loads the manager; the local page comes back from
/// the cache (pageshow, boot() not run again) or, the cache evicted, loads again as a
/// `back_forward` navigation (boot() runs, and must not redirect).
extension InstanceShell {
  /// Back: iOS's edge swipe (WebView history), Android's back key (`dispatchKeyEvent`).
  public func back() {
    guard isRunning else { return }
    switch build.platform {
    case .ios:
      if let gesture = build.instanceShell?.code.iosBackGesture, !gesture.value {
        // No back button on iOS: without the swipe, nothing goes back.
        let why =
          "the back swipe is off at \(gesture.origin)"
          + (gesture.derivation.first.map { ": \($0)" } ?? "")
        note("edge swipe: nothing happens, \(why)")
        if case .remote = screen { remoteBecause = why }
        return
      }
      guard index > 0 else {
        note("edge swipe: nothing behind this page")
        return
      }
      index -= 1
      restoreFromHistory()
    case .android:
      if !behaviours.trustsCanGoBack, currentRemote != nil,
        let plain = build.instanceShell?.code.androidBackLoadsPlainLocal
      {
        let parameter = build.instanceShell?.code.bootManagerParameter?.value ?? "manage"
        note("back key on a remote instance: loadUrl(\(plain.value)), without ?\(parameter)=1")
        loadLocal(query: nil)
        if case .remote = screen {
          remoteBecause =
            "the back key loads \(plain.value) at \(plain.origin), without ?\(parameter)=1"
            + (build.instanceShell?.code.bootManagerParameter.map {
              ", the parameter boot() tests at \($0.origin)"
            } ?? "") + ": boot() redirected to the active instance"
        }
        return
      }
      if behaviours.trustsCanGoBack || currentRemote == nil {
        if currentRemote == nil || canGoBackStale || index == 0 {
          let why =
            canGoBackStale
            ? "back key: canGoBack() is false after the cold-launch redirect, so the activity finishes"
              + (build.instanceShell?.code.androidBackLoadsManager.flatMap {
                $0.value
                  ? nil
                  : " (\($0.origin) loads no manager on back: \($0.derivation.first ?? "no dispatchKeyEvent"))"
              } ?? "")
            : "back key on the local page: the activity finishes"
          note(why)
          screen = .closed
          if canGoBackStale { closedBecause = why }
          return
        }
        index -= 1
        restoreFromHistory()
        return
      }
      note("back key on a remote instance: loadUrl(\(localOrigin)?manage=1)")
      loadLocal(query: "manage=1")
    }
  }

  /// The WebView's back-forward cache is evicted (memory pressure, a long time in the
  /// background): a page gone back to is loaded again rather than restored.
  public func evictBackForwardCache() {
    backForwardCacheEvicted = true
    note("the WebView's back-forward cache was evicted: going back reloads the page")
  }

  /// A history entry shown again: the local page comes back from the back-forward cache, or
  /// — the cache evicted — is loaded again as a `back_forward` navigation.
  func restoreFromHistory() {
    let url = history[index]
    if url.hasPrefix(localOrigin), backForwardCacheEvicted {
      backForwardCacheEvicted = false
      // decidePolicyFor sees a local destination: enterLocalMode() restores the scripts
      // captured at load, which are gone when the copy was the live array (bug #1).
      if build.platform == .ios && remoteModeEntered && behaviours.localScriptsNotSnapshotted {
        localScriptsLost = true
      }
      note("back to the local page: not in the back-forward cache, it loads again (back_forward)")
      let query = URLComponents(string: url)?.percentEncodedQuery
      loadLocal(query: query, backForward: true)
      return
    }
    if url.hasPrefix(localOrigin) {
      if behaviours.noPageshowHandler && leftByBoot.contains(index) {
        // boot() does not run again: the page shows what it showed when it was left.
        screen = .placeholder(
          "restored from the back-forward cache; boot() did not run again"
            + (build.instanceShell?.code.pageshowHandler.flatMap {
              $0.value ? nil : " (\($0.origin) has no pageshow handler)"
            } ?? ""))
        note("back to the local page: no pageshow handler, the placeholder stays")
      } else {
        note("back to the local page: pageshow (persisted) renders the manager")
        renderOnboarding(prefill: "", sameDocument: true)
      }
      return
    }
    screen = .remote(url)
    note("back to \(url)")
  }

  /// Where the app loses Capacitor for the local page: the copy kept as the live array (bug
  /// #1), or a restore that leaves out a piece isolation removed.
  var localScriptsLostWhere: String {
    let code = build.instanceShell?.code
    if let copy = code?.iosSnapshotsLocalScripts, !copy.value {
      return "; \(copy.origin): the user scripts are kept as the live array"
    }
    if let restore = code?.iosRestoresLocalMode, !restore.value {
      return "; \(restore.origin): \(restore.derivation.first ?? "Capacitor is not put back")"
    }
    return ""
  }
}
