# The fixture builders of pick's tests (pick.testdata.fixturelib,
# pick.testdata.roundsfix; make_fixtures regenerates the fixed result sets:
# `cd bench && /usr/bin/python3 -m pick.testdata.make_fixtures`).
