"""What the game screen shows: the game at one version as everyone sees it (`state`), the board of one
viewer (`view`), its markup made as strings (`markup`), the hints (`hints`, `hint_words`) and the
moments a change celebrates (`moments`). Used by the page, its htmx answers and the live pushes alike."""
