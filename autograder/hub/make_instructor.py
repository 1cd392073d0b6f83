"""``python -m autograder.hub.make_instructor DB_URL NAME`` (the password on stdin), in the hub's
environment: NativeAuthenticator's account of the instructor, authorised, made before the hub first
starts, so that no one can sign up under the instructor's name first. Prints "created" when it made it.

A new database gets JupyterHub's own tables and version first, as its first start makes them: with
NativeAuthenticator's table alone, JupyterHub takes it for a database of version 0.6 and refuses to start.
"""

import sys

import bcrypt
from jupyterhub import orm
from nativeauthenticator.orm import UserInfo
from sqlalchemy import create_engine, inspect
from sqlalchemy.orm import Session


def main(url, name, password):
    engine = create_engine(url)
    if not inspect(engine).get_table_names():
        orm.new_session_factory(url)
    UserInfo.__table__.create(engine, checkfirst=True)
    with Session(engine) as session:
        if session.query(UserInfo).filter_by(username=name).first() is None:
            hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt())
            session.add(UserInfo(username=name, is_authorized=True, password=hashed))
            session.commit()
            print("created")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.stdin.read().strip())
